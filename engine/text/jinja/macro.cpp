// {% macro %} and {% call %}: functions written in the template, with Jinja's binding rules.
// A macro runs in the scopes where it was defined (so a top-level macro sees template-level
// variables as they are when it is called, not the loop variables of its caller) plus one of
// its own, and returns its rendered body. The body of {% call %} is itself a macro, caller(),
// defined where the call stands and handed to the called macro.
#include <algorithm>
#include <optional>

#include "engine/text/jinja/interpreter.h"

namespace hearth::jinja {

void Interpreter::define_macro(const Statement& macro) {
    const Closure closure(m_scopes.begin(), m_scopes.end());
    const std::string& name = macro.targets[0];
    assign(name, Value(Function([this, &macro, name, closure](const CallArguments& args) {
               return call_macro(macro, name, closure, args);
           })));
}

void Interpreter::execute_call_block(const Statement& block, std::string& out) {
    const Closure closure(m_scopes.begin(), m_scopes.end());
    Value caller(Function([this, &block, closure](const CallArguments& args) {
        return call_macro(block, "caller", closure, args);
    }));
    write(out, evaluate_call(*block.expressions[0], std::move(caller)).str(m_limits));
}

Value Interpreter::call_macro(const Statement& macro, const std::string& name,
                              const Closure& closure, const CallArguments& args) {
    check_call_depth(m_limits, m_calls + 1);
    Scopes scopes;
    for (const auto& frame : closure) {
        auto alive = frame.lock();
        if (!alive) {
            throw RenderError("macro '" + name +
                              "' was called after the block that defined it had ended");
        }
        scopes.push_back(std::move(alive));
    }
    scopes.push_back(std::make_shared<Frame>());

    // The caller's scopes come back however the body ends.
    struct CallScope {
        Interpreter& interpreter;
        Scopes saved;
        CallScope(Interpreter& i, Scopes inner) : interpreter(i), saved(std::move(inner)) {
            std::swap(interpreter.m_scopes, saved);
            ++interpreter.m_calls;
        }
        ~CallScope() {
            std::swap(interpreter.m_scopes, saved);
            --interpreter.m_calls;
        }
        CallScope(const CallScope&) = delete;
        CallScope& operator=(const CallScope&) = delete;
    } const call_scope(*this, std::move(scopes));

    bind_arguments(macro, name, args);
    std::string out;
    execute(macro.bodies[0], out);
    return Value(std::move(out));
}

// Jinja's Macro.__call__: positional arguments first, then keywords by parameter name, then
// the defaults, evaluated in the macro's own scope. Extra arguments go to varargs/kwargs
// when the body reads them and are a TypeError otherwise.
void Interpreter::bind_arguments(const Statement& macro, const std::string& name,
                                 const CallArguments& args) {
    Frame& frame = *m_scopes.back();
    auto keywords = args.named;
    const auto take_keyword = [&](const std::string& key) -> std::optional<Value> {
        const auto found = std::find_if(keywords.begin(), keywords.end(),
                                        [&](const auto& entry) { return entry.first == key; });
        if (found == keywords.end()) return std::nullopt;
        Value value = std::move(found->second);
        keywords.erase(found);
        return value;
    };
    const auto& parameters = macro.parameters;
    std::vector<size_t> missing;
    for (size_t i = 0; i < parameters.size(); ++i) {
        if (i < args.positional.size()) {
            frame[parameters[i]] = args.positional[i];
        } else if (auto value = take_keyword(parameters[i])) {
            frame[parameters[i]] = std::move(*value);
        } else {
            missing.push_back(i);
        }
    }
    if (macro.reads_caller && !frame.contains("caller"))
        frame["caller"] = take_keyword("caller").value_or(Value(Undefined{"No caller defined"}));
    if (macro.reads_kwargs) {
        Object rest;
        for (auto& [key, value] : keywords) rest.set(key, std::move(value));
        frame["kwargs"] = Value(std::move(rest));
    } else if (!keywords.empty()) {
        throw RenderError("macro '" + name + "' takes no keyword argument '" +
                          keywords.front().first + "'");
    }
    if (macro.reads_varargs) {
        const auto given = std::min(args.positional.size(), parameters.size());
        frame["varargs"] =
            Value(Array(args.positional.begin() + static_cast<long>(given), args.positional.end()));
    } else if (args.positional.size() > parameters.size()) {
        throw RenderError("macro '" + name + "' takes not more than " +
                          std::to_string(parameters.size()) + " argument(s)");
    }
    for (const size_t i : missing) {
        frame[parameters[i]] =
            macro.defaults[i]
                ? evaluate(*macro.defaults[i])
                : Value(Undefined{"parameter '" + parameters[i] + "' was not provided"});
    }
}

}  // namespace hearth::jinja
