#include "engine/text/jinja/template.h"

#include <memory>

#include "engine/text/jinja/interpreter.h"
#include "engine/text/jinja/names.h"
#include "engine/text/jinja/parser.h"

namespace hearth::jinja {
namespace {

const Value& first_argument(const CallArguments& args) {
    static const Value missing;
    return args.positional.empty() ? missing : args.positional[0];
}

Value make_range(const CallArguments& args) {
    int64_t start = 0, stop = 0, step = 1;
    const auto& p = args.positional;
    if (p.size() == 1)
        stop = p[0].as_int();
    else if (p.size() >= 2)
        start = p[0].as_int(), stop = p[1].as_int();
    if (p.size() == 3) step = p[2].as_int();
    if (step == 0) throw RenderError("range() arg 3 must not be zero");
    if ((stop - start) / step > 100000) throw RenderError("range() is too long");
    Array out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) out.emplace_back(i);
    return Value(std::move(out));
}

Object make_globals(const std::tm& now) {
    Object globals;
    globals.set("raise_exception", Value(Function([](const CallArguments& args) -> Value {
                    throw TemplateRaised(first_argument(args).str());
                })));
    globals.set("strftime_now", Value(Function([now](const CallArguments& args) {
                    return Value(format_time(first_argument(args).str(), now));
                })));
    globals.set("namespace", Value(Function([](const CallArguments& args) {
                    auto space = std::make_shared<Namespace>();
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
    globals.set("range", Value(Function(make_range)));
    return globals;
}

}  // namespace

Template::Template(std::string_view source) : m_body(parse_template(source)) {}

std::string Template::render(const Object& variables, const std::tm& now) const {
    Interpreter interpreter(variables, make_globals(now));
    return interpreter.render(m_body);
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
