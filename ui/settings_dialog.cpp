#include "ui/settings_dialog.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

#include "engine/compute/vulkan/device.h"
#include "ui/prompt_presets_editor.h"
#include "ui/server_page.h"

namespace hearth::ui {
namespace {

// Automatic, the CPU, and every Vulkan device the drivers offer (a CPU implementation such as
// lavapipe too, marked so: it is for testing, slower than Hearth's own CPU backend).
void add_backends(QComboBox& box, const QString& current) {
    box.addItem(QObject::tr("Automatic (a GPU that passes Hearth's check, else the CPU)"),
                QStringLiteral("auto"));
    box.addItem(QObject::tr("CPU"), QStringLiteral("cpu"));
    try {
        for (const auto& device : vulkan::list_devices()) {
            box.addItem(QObject::tr("GPU: %1 (%2, Vulkan device %3)")
                            .arg(QString::fromStdString(device.name),
                                 QString::fromStdString(device.type_name()))
                            .arg(device.index),
                        QStringLiteral("vulkan:%1").arg(device.index));
        }
    } catch (const std::exception&) {  // no Vulkan driver: the CPU is the only choice
    }
    if (box.findData(current) < 0 && current.startsWith(QLatin1String("vulkan:"))) {
        box.addItem(QObject::tr("Vulkan device %1 (not present now)").arg(current.section(':', 1)),
                    current);
    }
    box.setCurrentIndex(std::max(0, box.findData(current)));
}

}  // namespace
namespace {

QDoubleSpinBox* number(double low, double high, double step, int decimals, double value,
                       const QString& name, const QString& tip) {
    auto* box = new QDoubleSpinBox;
    box->setRange(low, high);
    box->setSingleStep(step);
    box->setDecimals(decimals);
    box->setValue(value);
    box->setObjectName(name);
    box->setAccessibleName(name);
    box->setToolTip(tip);
    return box;
}

QSpinBox* integer(int low, int high, int value, const QString& name, const QString& tip) {
    auto* box = new QSpinBox;
    box->setRange(low, high);
    box->setValue(value);
    box->setObjectName(name);
    box->setAccessibleName(name);
    box->setToolTip(tip);
    return box;
}

// Shown with a field's own tooltip while what it holds cannot be used.
QString tip_with_problem(const QString& tip, bool ok, const QString& problem) {
    return ok ? tip : problem + QStringLiteral("\n\n") + tip;
}

// The Thinking choice as its item's data: -1 the template's default, 1 on, 0 off.
int thinking_data(std::optional<bool> enable) {
    return enable ? static_cast<int>(*enable) : -1;
}

std::optional<bool> thinking_choice(int data) {
    return data < 0 ? std::nullopt : std::optional<bool>(data == 1);
}

// Disabled, with the reason, when the model's template has no switch: the choice is kept for
// the conversation (another model may read it) but would change nothing now.
QComboBox* thinking_box(std::optional<bool> enable, bool thinking_switch) {
    auto* box = new QComboBox;
    box->setObjectName(QStringLiteral("thinking"));
    box->setAccessibleName(QObject::tr("Thinking"));
    box->addItem(QObject::tr("Model default"), -1);
    box->addItem(QObject::tr("On: reason before answering"), 1);
    box->addItem(QObject::tr("Off: answer directly"), 0);
    box->setCurrentIndex(box->findData(thinking_data(enable)));
    box->setEnabled(thinking_switch);
    box->setToolTip(thinking_switch
                        ? QObject::tr("Whether the model writes out its reasoning before the "
                                      "answer (its chat template's enable_thinking).")
                        : QObject::tr("The loaded model's chat template has no thinking switch "
                                      "(it does not read enable_thinking), so this choice would "
                                      "change nothing. Qwen3 and SmolLM3 models have one."));
    return box;
}

// gpt-oss's levels; the item data is what the template receives, empty for its default.
QComboBox* reasoning_effort_box(const QString& effort, bool offered) {
    auto* box = new QComboBox;
    box->setObjectName(QStringLiteral("reasoningEffort"));
    box->setAccessibleName(QObject::tr("Reasoning effort"));
    box->addItem(QObject::tr("Model default"), QString());
    box->addItem(QObject::tr("Low: answer quickly"), QStringLiteral("low"));
    box->addItem(QObject::tr("Medium"), QStringLiteral("medium"));
    box->addItem(QObject::tr("High: reason at length"), QStringLiteral("high"));
    box->setCurrentIndex(std::max(box->findData(effort), 0));
    box->setEnabled(offered);
    box->setToolTip(offered ? QObject::tr("How long the model reasons before it answers (its "
                                          "chat template's reasoning_effort).")
                            : QObject::tr("The loaded model's chat template does not read "
                                          "reasoning_effort, so this choice would change "
                                          "nothing. gpt-oss models read it."));
    return box;
}

}  // namespace

SettingsDialog::SettingsDialog(const core::ConversationSettings& conversation,
                               const core::GlobalSettings& global, TemplateChoices choices,
                               core::ServerStatus* server, QWidget* parent)
    : QDialog(parent), m_conversation(conversation), m_global(global) {
    setObjectName(QStringLiteral("settingsDialog"));
    setWindowTitle(tr("Settings"));
    const auto& sampler = conversation.sampler;

    m_system = new QPlainTextEdit(conversation.system_prompt);
    m_system->setObjectName(QStringLiteral("systemPrompt"));
    m_system->setAccessibleName(tr("System prompt"));
    m_system->setTabChangesFocus(true);
    m_system->setToolTip(
        tr("Instructions the model reads before the conversation, such as "
           "“Answer briefly.” Models without a chat template read it as text."));
    m_presets = new PromptPresetsEditor(global.system_prompts, global.new_chat_prompt, m_system);
    m_temperature = number(0.0, 5.0, 0.05, 2, sampler.temperature, "temperature",
                           tr("How adventurous the wording is: 0 always takes the likeliest "
                              "word (the same answer every time), higher values vary more."));
    m_top_k = integer(0, 100000, sampler.top_k, "topK",
                      tr("Choose each word among only this many of the likeliest ones "
                         "(0: no limit)."));
    m_top_p = number(0.0, 1.0, 0.01, 3, sampler.top_p, "topP",
                     tr("Choose each word among the likeliest ones that together make up this "
                        "share of the chances (1: no limit)."));
    m_min_p = number(0.0, 1.0, 0.01, 3, sampler.min_p, "minP",
                     tr("Leave out words less likely than this share of the likeliest word's "
                        "chance (0: none left out)."));
    m_repeat = number(0.01, 5.0, 0.05, 2, sampler.repeat_penalty, "repeatPenalty",
                      tr("Above 1, words already used recently become less likely, against "
                         "repetition (1: no penalty)."));
    m_seed = new QLineEdit(conversation.random_seed ? QString() : QString::number(sampler.seed));
    m_seed->setObjectName(QStringLiteral("seed"));
    m_seed->setAccessibleName(tr("Seed"));
    m_seed->setPlaceholderText(tr("random"));
    m_seed->setToolTip(m_seed_tip);
    m_seed->setValidator(
        new QRegularExpressionValidator(QRegularExpression("[0-9]{0,19}"), m_seed));
    m_max_tokens = integer(1, 1 << 20, conversation.max_tokens, "maxTokens",
                           tr("The longest an answer may be, in tokens (a token is about three "
                              "quarters of a word). A longer one is cut off, with Continue."));
    m_context = integer(0, 1 << 20, conversation.context_length, "contextLength", m_context_tip);
    m_context->setSpecialValueText(tr("model default"));
    m_overflow = new QComboBox;
    m_overflow->setObjectName(QStringLiteral("overflow"));
    m_overflow->setAccessibleName(tr("When the context is full"));
    m_overflow->setToolTip(
        tr("What happens when the conversation no longer fits the context "
           "length: stop, forget the oldest messages, or forget the middle."));
    m_overflow->addItem(tr("Stop and say so"), static_cast<int>(OverflowPolicy::Stop));
    m_overflow->addItem(tr("Rolling window (drop the oldest messages)"),
                        static_cast<int>(OverflowPolicy::RollingWindow));
    m_overflow->addItem(tr("Truncate the middle (keep the first exchange)"),
                        static_cast<int>(OverflowPolicy::TruncateMiddle));
    m_overflow->setCurrentIndex(m_overflow->findData(static_cast<int>(conversation.overflow)));
    m_json = new QCheckBox(tr("Answer in JSON"));
    m_json->setObjectName(QStringLiteral("jsonMode"));
    m_json->setChecked(conversation.json_mode);
    m_json->setToolTip(tr("The answer is always valid JSON, for programs that read it."));
    m_thinking = thinking_box(conversation.enable_thinking, choices.thinking);
    m_reasoning_effort =
        reasoning_effort_box(conversation.reasoning_effort, choices.reasoning_effort);

    auto* chat_page = new QWidget;
    auto* chat_form = new QFormLayout(chat_page);
    chat_form->addRow(tr("System prompt"), m_system);
    chat_form->addRow(tr("Presets"), m_presets);
    chat_form->addRow(tr("New chats start with"), m_presets->new_chat_box());
    chat_form->addRow(tr("Temperature (0: greedy)"), m_temperature);
    chat_form->addRow(tr("Top-k (0: off)"), m_top_k);
    chat_form->addRow(tr("Top-p"), m_top_p);
    chat_form->addRow(tr("Min-p"), m_min_p);
    chat_form->addRow(tr("Repeat penalty"), m_repeat);
    chat_form->addRow(tr("Seed"), m_seed);
    chat_form->addRow(tr("Max tokens"), m_max_tokens);
    chat_form->addRow(tr("Context length"), m_context);
    chat_form->addRow(tr("When the context is full"), m_overflow);
    chat_form->addRow(QString(), m_json);
    chat_form->addRow(tr("Thinking"), m_thinking);
    chat_form->addRow(tr("Reasoning effort"), m_reasoning_effort);

    m_threads = integer(0, 1024, global.threads, "threads",
                        tr("How many processor cores run the model on the CPU."));
    m_threads->setSpecialValueText(tr("automatic (one per core, one left for the window)"));
    m_chunk = integer(1, 256, global.chunk_tokens, "chunkTokens",
                      tr("How many new tokens the engine writes before it hands them to the "
                         "window. Fewer: the answer appears more smoothly; more: slightly "
                         "faster."));
    m_speculative = new QCheckBox(tr("Speculative decoding (greedy answers)"));
    m_speculative->setObjectName(QStringLiteral("speculative"));
    m_speculative->setChecked(global.speculative);
    m_speculative->setToolTip(
        tr("Guesses several tokens ahead from the conversation and checks "
           "them at once: faster answers when the temperature is 0 and the "
           "answer repeats earlier text, the same words either way."));
    m_draft_model = new QLineEdit(global.draft_model);
    m_draft_model->setObjectName(QStringLiteral("draftModel"));
    m_draft_model->setAccessibleName(tr("Draft model"));
    m_draft_model->setPlaceholderText(tr("None: guesses come from the conversation"));
    m_draft_model->setToolTip(
        tr("A smaller model with the same vocabulary (say, a 0.5B of the same family) that "
           "guesses the next tokens for the model to check: faster greedy answers, the same "
           "words. A file of another vocabulary is refused and said."));
    auto* browse_draft = new QPushButton(tr("Browse…"));
    browse_draft->setObjectName(QStringLiteral("browseDraftModel"));
    browse_draft->setToolTip(tr("Choose the draft model's GGUF file."));
    connect(browse_draft, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Draft model"), QString(),
                                                          tr("GGUF models (*.gguf)"));
        if (!file.isEmpty()) m_draft_model->setText(file);
    });
    auto* draft_row = new QWidget;
    auto* draft_layout = new QHBoxLayout(draft_row);
    draft_layout->setContentsMargins(0, 0, 0, 0);
    draft_layout->addWidget(m_draft_model, 1);
    draft_layout->addWidget(browse_draft);
    // The draft model only matters to speculative decoding.
    draft_row->setEnabled(global.speculative);
    connect(m_speculative, &QCheckBox::toggled, draft_row, &QWidget::setEnabled);
    m_backend = new QComboBox;
    m_backend->setObjectName(QStringLiteral("backend"));
    m_backend->setAccessibleName(tr("Backend"));
    add_backends(*m_backend, global.backend);
    m_backend->setToolTip(
        tr("What runs the model: the processor, or a graphics card through "
           "Vulkan. Automatic uses a graphics card that passes Hearth's check."));
    m_kv_cache = new QComboBox;
    m_kv_cache->setObjectName(QStringLiteral("kvCache"));
    m_kv_cache->setAccessibleName(tr("KV cache"));
    m_kv_cache->addItem(tr("F16 (full precision)"), QStringLiteral("f16"));
    m_kv_cache->addItem(tr("Q8_0 (about half the memory)"), QStringLiteral("q8_0"));
    m_kv_cache->setToolTip(
        tr("How the conversation's keys and values are kept: Q8_0 fits about twice the context "
           "in the same memory. Models whose attention heads are not whole 32-value blocks keep "
           "F16."));
    m_kv_cache->setCurrentIndex(std::max(0, m_kv_cache->findData(global.kv_cache)));
    m_theme = new QComboBox;
    m_theme->setObjectName(QStringLiteral("theme"));
    m_theme->setAccessibleName(tr("Theme"));
    m_theme->addItem(tr("Follow the system"), static_cast<int>(core::Theme::System));
    m_theme->addItem(tr("Light"), static_cast<int>(core::Theme::Light));
    m_theme->addItem(tr("Dark"), static_cast<int>(core::Theme::Dark));
    m_theme->setCurrentIndex(m_theme->findData(static_cast<int>(global.theme)));
    m_theme->setToolTip(tr("Light or dark colours, or those of the desktop."));
    m_font = integer(6, 40, global.font_size, "fontSize",
                     tr("The size of the text in the window, in points."));

    auto* app_page = new QWidget;
    auto* app_form = new QFormLayout(app_page);
    app_form->addRow(tr("Threads"), m_threads);
    app_form->addRow(tr("Tokens per hand-off"), m_chunk);
    app_form->addRow(QString(), m_speculative);
    app_form->addRow(tr("Draft model"), draft_row);
    app_form->addRow(tr("Backend"), m_backend);
    app_form->addRow(tr("KV cache"), m_kv_cache);
    app_form->addRow(tr("Theme"), m_theme);
    app_form->addRow(tr("Font size"), m_font);

    auto* tabs = new QTabWidget;
    tabs->addTab(chat_page, tr("This conversation"));
    tabs->addTab(app_page, tr("Application"));
    if (server != nullptr) {
        m_server = new ServerPage(global.server, *server);
        tabs->addTab(m_server, tr("Server"));
        connect(m_server, &ServerPage::validityChanged, this, &SettingsDialog::validate);
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setObjectName(QStringLiteral("settingsOk"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(tabs);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_seed, &QLineEdit::textChanged, this, &SettingsDialog::validate);
    connect(m_top_p, &QDoubleSpinBox::valueChanged, this, &SettingsDialog::validate);
    connect(m_context, &QSpinBox::valueChanged, this, &SettingsDialog::validate);
    validate();
}

bool SettingsDialog::valid() const {
    return m_ok->isEnabled();
}

// What the widgets' ranges cannot express: the seed must fit 64 bits, top-p 0 would keep no
// token at all, a context shorter than 64 tokens holds no conversation, and a server key must be
// one a client can send.
void SettingsDialog::validate() {
    bool seed_ok = true;
    if (!m_seed->text().isEmpty()) m_seed->text().toULongLong(&seed_ok);
    const bool context_ok = m_context->value() == 0 || m_context->value() >= 64;
    const bool server_ok = m_server == nullptr || m_server->valid();
    m_ok->setEnabled(seed_ok && m_top_p->value() > 0.0 && context_ok && server_ok);
    m_seed->setToolTip(
        tip_with_problem(m_seed_tip, seed_ok, tr("A seed is a whole number below 2^64")));
    m_context->setToolTip(tip_with_problem(m_context_tip, context_ok,
                                           tr("At least 64 tokens, or the model default")));
}

core::ConversationSettings SettingsDialog::conversation() const {
    core::ConversationSettings settings = m_conversation;
    settings.system_prompt = m_system->toPlainText();
    settings.sampler.temperature = static_cast<float>(m_temperature->value());
    settings.sampler.top_k = m_top_k->value();
    settings.sampler.top_p = static_cast<float>(m_top_p->value());
    settings.sampler.min_p = static_cast<float>(m_min_p->value());
    settings.sampler.repeat_penalty = static_cast<float>(m_repeat->value());
    settings.random_seed = m_seed->text().isEmpty();
    if (!settings.random_seed) settings.sampler.seed = m_seed->text().toULongLong();
    settings.max_tokens = m_max_tokens->value();
    settings.context_length = m_context->value();
    settings.overflow = static_cast<OverflowPolicy>(m_overflow->currentData().toInt());
    settings.json_mode = m_json->isChecked();
    settings.enable_thinking = thinking_choice(m_thinking->currentData().toInt());
    settings.reasoning_effort = m_reasoning_effort->currentData().toString();
    return settings;
}

core::GlobalSettings SettingsDialog::global() const {
    core::GlobalSettings settings = m_global;
    settings.threads = m_threads->value();
    settings.chunk_tokens = m_chunk->value();
    settings.speculative = m_speculative->isChecked();
    settings.draft_model = m_draft_model->text().trimmed();
    settings.backend = m_backend->currentData().toString();
    settings.kv_cache = m_kv_cache->currentData().toString();
    settings.theme = static_cast<core::Theme>(m_theme->currentData().toInt());
    settings.font_size = m_font->value();
    if (m_server != nullptr) settings.server = m_server->settings();
    settings.system_prompts = m_presets->presets();
    settings.new_chat_prompt = m_presets->new_chat_prompt();
    return settings;
}

}  // namespace hearth::ui
