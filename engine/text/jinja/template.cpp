#include "engine/text/jinja/template.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "engine/text/jinja/interpreter.h"
#include "engine/text/jinja/names.h"
#include "engine/text/jinja/parser.h"

namespace hearth::jinja {
namespace {

const Value& first_argument(const CallArguments& args) {
    static const Value missing;
    return args.positional.empty() ? missing : args.positional[0];
}

// Jinja's sandbox refuses ranges longer than this (MAX_RANGE), whatever memory is free.
constexpr uint64_t kSandboxMaxRange = 100000;

Value make_range(const CallArguments& args, const Limits& limits) {
    int64_t start = 0, stop = 0, step = 1;
    const auto& p = args.positional;
    for (const auto& bound : p) {
        if (!bound.is_int() && !bound.is_bool())
            throw RenderError("'" + bound.type_name() +
                              "' object cannot be interpreted as an integer");
    }
    if (p.size() == 1)
        stop = p[0].as_int();
    else if (p.size() >= 2)
        start = p[0].as_int(), stop = p[1].as_int();
    if (p.size() == 3) step = p[2].as_int();
    if (step == 0) throw RenderError("range() arg 3 must not be zero");
    // Unsigned differences, exact where stop - start would overflow int64.
    const bool empty = step > 0 ? stop <= start : stop >= start;
    const uint64_t span = step > 0 ? static_cast<uint64_t>(stop) - static_cast<uint64_t>(start)
                                   : static_cast<uint64_t>(start) - static_cast<uint64_t>(stop);
    const uint64_t stride =
        step > 0 ? static_cast<uint64_t>(step) : 0 - static_cast<uint64_t>(step);
    const uint64_t length = empty ? 0 : span / stride + (span % stride != 0 ? 1 : 0);
    check_list_items(limits, static_cast<size_t>(std::min<uint64_t>(length, SIZE_MAX)));
    if (length > kSandboxMaxRange) {
        throw RenderError("Range too big. The sandbox blocks ranges larger than MAX_RANGE (" +
                          std::to_string(kSandboxMaxRange) + ").");
    }
    Array out;
    out.reserve(static_cast<size_t>(length));
    for (uint64_t i = 0; i < length; ++i) out.emplace_back(start + static_cast<int64_t>(i) * step);
    return Value(std::move(out));
}

// The namespaces one render creates. A namespace is the one mutable value, so a template can
// make one hold itself ({% set ns.me = ns %}); emptying them all when the render ends breaks
// such cycles, which reference counting alone would never free.
class Namespaces final {
public:
    std::shared_ptr<Namespace> create() {
        if (m_created.size() >= m_prune_at) {  // a loop may make millions that die at once
            std::erase_if(m_created, [](const auto& created) { return created.expired(); });
            m_prune_at = std::max<size_t>(64, 2 * m_created.size());
        }
        auto space = std::make_shared<Namespace>();
        m_created.push_back(space);
        return space;
    }
    ~Namespaces() {
        for (const auto& created : m_created) {
            if (auto space = created.lock()) space->attributes = {};
        }
    }

private:
    std::vector<std::weak_ptr<Namespace>> m_created;
    size_t m_prune_at = 64;
};

Object make_globals(const std::tm& now, const Limits& limits, Namespaces& namespaces) {
    Object globals;
    globals.set("raise_exception", Value(Function([limits](const CallArguments& args) -> Value {
                    throw TemplateRaised(first_argument(args).str(limits));
                })));
    globals.set("strftime_now", Value(Function([now](const CallArguments& args) {
                    return Value(format_time(first_argument(args).str(), now));
                })));
    globals.set("namespace", Value(Function([&namespaces](const CallArguments& args) {
                    auto space = namespaces.create();
                    if (first_argument(args).is_object())
                        space->attributes = first_argument(args).as_object();
                    for (const auto& [key, value] : args.named) space->attributes.set(key, value);
                    return Value(space);
                })));
    globals.set("dict", Value(Function([](const CallArguments& args) {
                    Object object;
                    for (const auto& [key, value] : args.named) object.set(key, value);
                    return Value(std::move(object));
                })));
    globals.set(
        "range",
        Value(Function([limits](const CallArguments& args) { return make_range(args, limits); })));
    return globals;
}

}  // namespace

Template::Template(std::string_view source, const Limits& limits)
    : m_limits(limits), m_body(parse_template(source, m_limits)) {}

std::string Template::render(const Object& variables, const std::tm& now) const {
    Namespaces namespaces;  // outlives the interpreter and every value it made
    Interpreter interpreter(variables, make_globals(now, m_limits, namespaces), m_limits);
    try {
        return interpreter.render(m_body);
    } catch (const std::bad_variant_access&) {
        // A filter or method given a value of a type it does not take, where Python would
        // raise a TypeError.
        throw RenderError("the template passed a value of the wrong type to a filter or method");
    }
}

bool Template::reads(const std::string& name) const {
    return names_read(m_body).contains(name);
}

std::string format_time(const std::string& format, const std::tm& time) {
    static const char* const months[] = {"January",   "February", "March",    "April",
                                         "May",       "June",     "July",     "August",
                                         "September", "October",  "November", "December"};
    static const char* const days[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                       "Thursday", "Friday", "Saturday"};
    const auto two = [](int value) { return (value < 10 ? "0" : "") + std::to_string(value); };
    std::string out;
    for (size_t i = 0; i < format.size(); ++i) {
        if (format[i] != '%' || i + 1 == format.size()) {
            out += format[i];
            continue;
        }
        const char spec = format[++i];
        const std::string month = months[time.tm_mon % 12], day = days[time.tm_wday % 7];
        switch (spec) {
            case 'd':
                out += two(time.tm_mday);
                break;
            case 'm':
                out += two(time.tm_mon + 1);
                break;
            case 'Y':
                out += std::to_string(time.tm_year + 1900);
                break;
            case 'y':
                out += two((time.tm_year + 1900) % 100);
                break;
            case 'H':
                out += two(time.tm_hour);
                break;
            case 'I':
                out += two(time.tm_hour % 12 == 0 ? 12 : time.tm_hour % 12);
                break;
            case 'M':
                out += two(time.tm_min);
                break;
            case 'S':
                out += two(time.tm_sec);
                break;
            case 'p':
                out += time.tm_hour < 12 ? "AM" : "PM";
                break;
            case 'B':
                out += month;
                break;
            case 'b':
                out += month.substr(0, 3);
                break;
            case 'A':
                out += day;
                break;
            case 'a':
                out += day.substr(0, 3);
                break;
            case 'j': {
                const std::string number = std::to_string(time.tm_yday + 1);
                out += std::string(3 - number.size(), '0') + number;
                break;
            }
            case '%':
                out += '%';
                break;
            default:
                out += '%', out += spec;
        }
    }
    return out;
}

}  // namespace hearth::jinja
