#include "engine/text/jinja/parser.h"

#include <set>

#include "engine/text/jinja/expression_lexer.h"
#include "engine/text/jinja/lexer.h"
#include "engine/text/jinja/names.h"

namespace hearth::jinja {
namespace {

using ExpressionPtr = std::unique_ptr<Expression>;

ExpressionPtr make(Expression::Kind kind, std::string name = {}) {
    auto node = std::make_unique<Expression>();
    node->kind = kind;
    node->name = std::move(name);
    return node;
}

// Counts one level of recursion for as long as it lives, failing past the limit, so a
// template of ten thousand '(' cannot overflow the parser's stack.
class NestingGuard {
public:
    NestingGuard(size_t& depth, const Limits& limits) : m_depth(depth) {
        check_source_nesting(limits, ++m_depth);
    }
    ~NestingGuard() { --m_depth; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

private:
    size_t& m_depth;
};

// Recursive descent over one tag's tokens, with Jinja's operator precedence.
class ExpressionParser {
public:
    ExpressionParser(std::string_view source, int line, const Limits& limits)
        : m_tokens(tokenize(source, line)), m_line(line), m_limits(limits) {}

    [[noreturn]] void fail(const std::string& what) const {
        throw RenderError("template line " + std::to_string(m_line) + ": " + what);
    }
    const Token& peek(size_t ahead = 0) const {
        return m_tokens[std::min(m_index + ahead, m_tokens.size() - 1)];
    }
    bool at_end() const { return peek().kind == Token::Kind::End; }
    bool is_operator(std::string_view op, size_t ahead = 0) const {
        return peek(ahead).kind == Token::Kind::Operator && peek(ahead).text == op;
    }
    bool is_name(std::string_view name, size_t ahead = 0) const {
        return peek(ahead).kind == Token::Kind::Name && peek(ahead).text == name;
    }
    bool accept_operator(std::string_view op) {
        if (!is_operator(op)) return false;
        ++m_index;
        return true;
    }
    bool accept_name(std::string_view name) {
        if (!is_name(name)) return false;
        ++m_index;
        return true;
    }
    void expect_operator(std::string_view op) {
        if (!accept_operator(op)) fail("expected '" + std::string(op) + "'");
    }
    std::string expect_name() {
        if (peek().kind != Token::Kind::Name) fail("expected a name");
        return m_tokens[m_index++].text;
    }
    void expect_end() {
        if (!at_end()) fail("unexpected '" + peek().text + "'");
    }

    ExpressionPtr expression() {
        const NestingGuard guard(m_depth, m_limits);
        ExpressionPtr value = or_expression();
        if (!accept_name("if")) return value;
        auto node = make(Expression::Kind::Conditional);
        node->operands.push_back(std::move(value));
        node->operands.push_back(or_expression());
        node->operands.push_back(accept_name("else") ? expression() : nullptr);
        return seal(std::move(node));
    }

    // Macro or caller() parameters: `(a, b=default)`, after the name.
    void parameters(Statement& node) {
        expect_operator("(");
        while (!accept_operator(")")) {
            node.parameters.push_back(expect_name());
            node.defaults.push_back(accept_operator("=") ? expression() : nullptr);
            if (!is_operator(")")) expect_operator(",");
        }
    }

    // The call of a {% call %} block: a call expression, not printed but invoked with caller.
    ExpressionPtr call() {
        ExpressionPtr value = expression();
        if (value->kind != Expression::Kind::Call) fail("{% call %} needs a macro call");
        return value;
    }

    // A bare tuple (`a, b`) is only allowed where a statement takes one; here: a single expression.
    ExpressionPtr or_expression() {
        ExpressionPtr left = and_expression();
        while (accept_name("or")) left = binary("or", std::move(left), and_expression());
        return left;
    }

private:
    // Records how tall a finished node's tree is and fails past the limit: a chain such as
    // `a + a + a ...` is parsed by a loop but evaluated, and freed, by recursion.
    ExpressionPtr seal(ExpressionPtr node) {
        for (const auto& operand : node->operands) {
            if (operand) node->height = std::max(node->height, operand->height + 1);
        }
        check_nesting_depth(m_limits, node->height);
        return node;
    }

    ExpressionPtr binary(const std::string& op, ExpressionPtr left, ExpressionPtr right) {
        auto node = make(Expression::Kind::Binary, op);
        node->operands.push_back(std::move(left));
        node->operands.push_back(std::move(right));
        return seal(std::move(node));
    }

    ExpressionPtr and_expression() {
        ExpressionPtr left = not_expression();
        while (accept_name("and")) left = binary("and", std::move(left), not_expression());
        return left;
    }

    ExpressionPtr not_expression() {
        if (!accept_name("not")) return comparison();
        const NestingGuard guard(m_depth, m_limits);
        auto node = make(Expression::Kind::Unary, "not");
        node->operands.push_back(not_expression());
        return seal(std::move(node));
    }

    ExpressionPtr comparison() {
        ExpressionPtr left = sum();
        while (true) {
            std::string op;
            if (peek().kind == Token::Kind::Operator &&
                std::set<std::string>{"==", "!=", "<", ">", "<=", ">="}.contains(peek().text)) {
                op = m_tokens[m_index++].text;
            } else if (accept_name("in")) {
                op = "in";
            } else if (is_name("not") && is_name("in", 1)) {
                m_index += 2;
                op = "not in";
            } else {
                return left;
            }
            left = binary(op, std::move(left), sum());
        }
    }

    ExpressionPtr sum() {
        ExpressionPtr left = concatenation();
        while (is_operator("+") || is_operator("-")) {
            const std::string op = m_tokens[m_index++].text;
            left = binary(op, std::move(left), concatenation());
        }
        return left;
    }

    ExpressionPtr concatenation() {
        ExpressionPtr left = product();
        while (accept_operator("~")) left = binary("~", std::move(left), product());
        return left;
    }

    ExpressionPtr product() {
        ExpressionPtr left = unary();
        while (is_operator("*") || is_operator("/") || is_operator("//") || is_operator("%")) {
            const std::string op = m_tokens[m_index++].text;
            left = binary(op, std::move(left), unary());
        }
        return left;
    }

    ExpressionPtr unary() {
        if (is_operator("-") || is_operator("+")) {
            const NestingGuard guard(m_depth, m_limits);
            auto node = make(Expression::Kind::Unary, m_tokens[m_index++].text);
            node->operands.push_back(unary());
            return seal(std::move(node));
        }
        return postfix(primary());
    }

    ExpressionPtr primary() {
        const Token& token = peek();
        if (token.kind == Token::Kind::String) {
            std::string text;
            while (peek().kind == Token::Kind::String)
                text += m_tokens[m_index++].text;  // "a" "b" joins
            auto node = make(Expression::Kind::Literal);
            node->literal = Value(text);
            return node;
        }
        if (token.kind == Token::Kind::Integer || token.kind == Token::Kind::Float) {
            auto node = make(Expression::Kind::Literal);
            node->literal = m_tokens[m_index++].value;
            return node;
        }
        if (token.kind == Token::Kind::Name) {
            const std::string name = m_tokens[m_index++].text;
            auto node = make(Expression::Kind::Literal);
            if (name == "true" || name == "True")
                node->literal = Value(true);
            else if (name == "false" || name == "False")
                node->literal = Value(false);
            else if (name == "none" || name == "None")
                node->literal = Value(None{});
            else
                return make(Expression::Kind::Name, name);
            return node;
        }
        if (accept_operator("(")) {
            ExpressionPtr inner = expression();
            if (is_operator(",")) {  // a tuple: evaluated as a list
                auto list = make(Expression::Kind::List);
                list->operands.push_back(std::move(inner));
                while (accept_operator(",") && !is_operator(")"))
                    list->operands.push_back(expression());
                inner = std::move(list);
            }
            expect_operator(")");
            return seal(std::move(inner));
        }
        if (accept_operator("[")) {
            auto list = make(Expression::Kind::List);
            while (!accept_operator("]")) {
                list->operands.push_back(expression());
                if (!is_operator("]")) expect_operator(",");
            }
            return seal(std::move(list));
        }
        if (accept_operator("{")) {
            auto dict = make(Expression::Kind::Dict);
            while (!accept_operator("}")) {
                dict->operands.push_back(expression());
                expect_operator(":");
                dict->operands.push_back(expression());
                if (!is_operator("}")) expect_operator(",");
            }
            return seal(std::move(dict));
        }
        fail(token.kind == Token::Kind::End ? "unexpected end of expression"
                                            : "unexpected '" + token.text + "'");
    }

    // Arguments of a call, filter or test, up to the closing ')'.
    void arguments(Expression& node) {
        while (!accept_operator(")")) {
            if (peek().kind == Token::Kind::Name && is_operator("=", 1)) {
                node.argument_names.push_back(m_tokens[m_index].text);
                m_index += 2;
            } else {
                node.argument_names.emplace_back();
            }
            node.operands.push_back(expression());
            if (!is_operator(")")) expect_operator(",");
        }
    }

    ExpressionPtr postfix(ExpressionPtr value) {
        while (true) {
            if (accept_operator(".")) {
                auto node = make(Expression::Kind::Attribute, expect_name());
                node->operands.push_back(std::move(value));
                value = std::move(node);
            } else if (accept_operator("[")) {
                value = subscript(std::move(value));
            } else if (accept_operator("(")) {
                auto node = make(Expression::Kind::Call);
                node->operands.push_back(std::move(value));
                node->argument_names.emplace_back();
                arguments(*node);
                value = std::move(node);
            } else if (accept_operator("|")) {
                auto node = make(Expression::Kind::Filter, expect_name());
                node->operands.push_back(std::move(value));
                node->argument_names.emplace_back();
                if (accept_operator("(")) arguments(*node);
                value = std::move(node);
            } else if (accept_name("is")) {
                auto node = make(Expression::Kind::Test);
                node->negated = accept_name("not");
                node->name = expect_name();
                node->operands.push_back(std::move(value));
                node->argument_names.emplace_back();
                if (accept_operator("(")) {
                    arguments(*node);
                } else if (!at_end() && (peek().kind == Token::Kind::String ||
                                         peek().kind == Token::Kind::Integer ||
                                         peek().kind == Token::Kind::Float)) {
                    node->operands.push_back(primary());  // `x is equalto 3`
                    node->argument_names.emplace_back();
                }
                value = std::move(node);
            } else {
                return value;
            }
            value = seal(std::move(value));
        }
    }

    ExpressionPtr subscript(ExpressionPtr value) {
        ExpressionPtr parts[3];
        int part = 0;
        bool slice = false;
        while (!accept_operator("]")) {
            if (accept_operator(":")) {
                slice = true;
                if (++part > 2) fail("too many ':' in a slice");
                continue;
            }
            parts[part] = expression();
        }
        auto node = make(slice ? Expression::Kind::Slice : Expression::Kind::Subscript);
        node->operands.push_back(std::move(value));
        if (!slice && !parts[0]) fail("empty subscript");
        for (int i = 0; i < (slice ? 3 : 1); ++i) node->operands.push_back(std::move(parts[i]));
        return node;
    }

    std::vector<Token> m_tokens;
    size_t m_index = 0;
    int m_line;
    const Limits& m_limits;
    size_t m_depth = 0;
};

const std::set<std::string> kUnsupportedTags{"filter", "include", "import",     "from", "extends",
                                             "block",  "raw",     "autoescape", "do",   "with"};

// Builds statement trees from segments, tracking which block each end tag closes.
class TemplateParser {
public:
    TemplateParser(std::vector<Segment> segments, const Limits& limits)
        : m_segments(std::move(segments)), m_limits(limits) {}

    Body parse() {
        Body body = block({});
        if (m_index < m_segments.size())
            fail(m_segments[m_index], "unexpected '" + m_segments[m_index].content + "'");
        return body;
    }

private:
    [[noreturn]] static void fail(const Segment& at, const std::string& what) {
        throw RenderError("template line " + std::to_string(at.line) + ": " + what);
    }

    static std::string keyword(const Segment& segment) {
        const auto& text = segment.content;
        const size_t start = text.find_first_not_of(" \t\n");
        if (start == std::string::npos) return {};
        size_t end = start;
        while (end < text.size() &&
               (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
            ++end;
        return text.substr(start, end - start);
    }

    static std::string rest(const Segment& segment) {
        const auto& text = segment.content;
        const std::string word = keyword(segment);
        return text.substr(text.find(word) + word.size());
    }

    // Parses statements until one of `terminators` (left unconsumed) or the end.
    Body block(const std::set<std::string>& terminators) {
        const NestingGuard guard(m_depth, m_limits);
        Body body;
        while (m_index < m_segments.size()) {
            const Segment& segment = m_segments[m_index];
            if (segment.kind == Segment::Kind::Text) {
                auto node = std::make_unique<Statement>();
                node->text = segment.content;
                body.push_back(std::move(node));
                ++m_index;
                continue;
            }
            if (segment.kind == Segment::Kind::Expression) {
                ExpressionParser parser(segment.content, segment.line, m_limits);
                auto node = std::make_unique<Statement>();
                node->kind = Statement::Kind::Output;
                node->expressions.push_back(parser.expression());
                parser.expect_end();
                body.push_back(std::move(node));
                ++m_index;
                continue;
            }
            const std::string word = keyword(segment);
            if (terminators.contains(word)) return body;
            ++m_index;
            body.push_back(statement(segment, word));
        }
        if (!terminators.empty()) {
            throw RenderError("template ended inside a block: missing {% " + *terminators.rbegin() +
                              " %}");
        }
        return body;
    }

    std::unique_ptr<Statement> statement(const Segment& segment, const std::string& word) {
        auto node = std::make_unique<Statement>();
        node->line = segment.line;
        ExpressionParser parser(rest(segment), segment.line, m_limits);
        if (word == "if") {
            node->kind = Statement::Kind::If;
            node->expressions.push_back(parser.expression());
            parser.expect_end();
            node->bodies.push_back(block({"elif", "else", "endif"}));
            while (keyword(m_segments[m_index]) == "elif") {
                ExpressionParser condition(rest(m_segments[m_index]), m_segments[m_index].line,
                                           m_limits);
                ++m_index;
                node->expressions.push_back(condition.expression());
                condition.expect_end();
                node->bodies.push_back(block({"elif", "else", "endif"}));
            }
            if (keyword(m_segments[m_index]) == "else") {
                ++m_index;
                node->bodies.push_back(block({"endif"}));
            }
            ++m_index;  // endif
        } else if (word == "for") {
            node->kind = Statement::Kind::For;
            do node->targets.push_back(parser.expect_name());
            while (parser.accept_operator(","));
            if (!parser.accept_name("in")) parser.fail("expected 'in' in a for loop");
            node->expressions.push_back(parser.or_expression());
            if (parser.accept_name("if")) {
                node->has_filter = true;
                node->expressions.push_back(parser.or_expression());
            }
            if (parser.accept_name("recursive"))
                throw UnsupportedTemplate("recursive for loops are not supported");
            parser.expect_end();
            node->bodies.push_back(block({"else", "endfor"}));
            if (keyword(m_segments[m_index]) == "else") {
                ++m_index;
                node->bodies.push_back(block({"endfor"}));
            }
            ++m_index;  // endfor
        } else if (word == "set") {
            node->kind = Statement::Kind::Set;
            node->targets.push_back(parser.expect_name());
            if (parser.accept_operator(".")) node->targets.push_back(parser.expect_name());
            if (parser.accept_operator("=")) {
                node->expressions.push_back(parser.expression());
                parser.expect_end();
            } else {
                parser.expect_end();
                node->bodies.push_back(block({"endset"}));
                ++m_index;
            }
        } else if (word == "generation") {
            // transformers' {% generation %} marks assistant text for masks; it renders its body.
            parser.expect_end();
            node->kind = Statement::Kind::If;
            auto always = make(Expression::Kind::Literal);
            always->literal = Value(true);
            node->expressions.push_back(std::move(always));
            node->bodies.push_back(block({"endgeneration"}));
            ++m_index;
        } else if (word == "macro") {
            node->kind = Statement::Kind::Macro;
            node->targets.push_back(parser.expect_name());
            parser.parameters(*node);
            parser.expect_end();
            callable_body(*node, "endmacro");
        } else if (word == "call") {
            node->kind = Statement::Kind::CallBlock;
            if (parser.is_operator("(")) parser.parameters(*node);
            node->expressions.push_back(parser.call());
            parser.expect_end();
            callable_body(*node, "endcall");
        } else if (word == "break" || word == "continue") {
            parser.expect_end();
            node->kind = word == "break" ? Statement::Kind::Break : Statement::Kind::Continue;
        } else if (kUnsupportedTags.contains(word)) {
            throw UnsupportedTemplate("the template uses {% " + word +
                                      " %}, which Hearth's template engine does not support");
        } else {
            fail(segment, "unknown tag '" + word + "'");
        }
        return node;
    }

    // The body of a macro or call block, and which of Jinja's special names it reads.
    void callable_body(Statement& node, const std::string& end) {
        node.bodies.push_back(block({end}));
        ++m_index;
        const std::set<std::string> names = names_read(node.bodies[0]);
        node.reads_varargs = names.contains("varargs");
        node.reads_kwargs = names.contains("kwargs");
        node.reads_caller = names.contains("caller");
    }

    std::vector<Segment> m_segments;
    size_t m_index = 0;
    const Limits& m_limits;
    size_t m_depth = 0;
};

}  // namespace

Body parse_template(std::string_view source, const Limits& limits) {
    return TemplateParser(split_template(source), limits).parse();
}

}  // namespace hearth::jinja
