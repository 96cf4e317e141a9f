// A throwaway self-signed certificate for 127.0.0.1 (an EC P-256 key, valid for a day), written
// as PEM files: what a user's own GPU box serves when nobody bought it a certificate.
#pragma once

#include <filesystem>

namespace hearth::test {

struct CertificateFiles {
    std::filesystem::path certificate;
    std::filesystem::path key;
};

// Writes cert.pem and key.pem into `folder`. Throws std::runtime_error when OpenSSL fails.
CertificateFiles write_self_signed_certificate(const std::filesystem::path& folder);

}  // namespace hearth::test
