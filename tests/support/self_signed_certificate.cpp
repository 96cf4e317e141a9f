#include "tests/support/self_signed_certificate.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace hearth::test {
namespace {

template <auto Free>
struct Deleter {
    template <typename T>
    void operator()(T* pointer) const {
        Free(pointer);
    }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using Certificate = std::unique_ptr<X509, Deleter<X509_free>>;
using Extension = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;
using File = std::unique_ptr<FILE, Deleter<fclose>>;

void check(bool ok, const char* what) {
    if (!ok) throw std::runtime_error(std::string("OpenSSL could not ") + what);
}

File open_for_writing(const std::filesystem::path& path) {
    File file(std::fopen(path.c_str(), "wb"));
    check(file != nullptr, "open a PEM file for writing");
    return file;
}

}  // namespace

CertificateFiles write_self_signed_certificate(const std::filesystem::path& folder) {
    const Key key(EVP_EC_gen("P-256"));
    check(key != nullptr, "make a key");
    const Certificate certificate(X509_new());
    check(certificate != nullptr, "make a certificate");
    X509_set_version(certificate.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(certificate.get()), 1);
    X509_gmtime_adj(X509_getm_notBefore(certificate.get()), -60);
    X509_gmtime_adj(X509_getm_notAfter(certificate.get()), 24 * 3600);
    X509_set_pubkey(certificate.get(), key.get());
    X509_NAME* name = X509_get_subject_name(certificate.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
    X509_set_issuer_name(certificate.get(), name);
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, certificate.get(), certificate.get(), nullptr, nullptr, 0);
    // Clients match the address against the subject's alternative names, not its CN.
    const Extension names(X509V3_EXT_conf_nid(nullptr, &context, NID_subject_alt_name,
                                              const_cast<char*>("IP:127.0.0.1")));
    check(names != nullptr && X509_add_ext(certificate.get(), names.get(), -1) == 1,
          "name the address");
    check(X509_sign(certificate.get(), key.get(), EVP_sha256()) > 0, "sign the certificate");

    const CertificateFiles files{folder / "cert.pem", folder / "key.pem"};
    check(PEM_write_X509(open_for_writing(files.certificate).get(), certificate.get()) == 1,
          "write the certificate");
    check(PEM_write_PrivateKey(open_for_writing(files.key).get(), key.get(), nullptr, nullptr, 0,
                               nullptr, nullptr) == 1,
          "write the key");
    return files;
}

}  // namespace hearth::test
