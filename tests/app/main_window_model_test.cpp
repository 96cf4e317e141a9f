// The window and the model it runs: the backend chosen in settings, a model that fails to load,
// and the template's choices (Thinking, Reasoning effort) reaching the prompt.
#include <gtest/gtest.h>

#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include "app/bundled_model.h"
#include "app/core/model_catalog.h"
#include "engine/format/gguf_file.h"
#include "engine/model/model_info.h"
#include "engine/text/chat_prompt.h"
#include "tests/support/main_window_fixture.h"
#include "tests/support/shared_data.h"
#include "tests/support/templated_model.h"
#include "ui/model_picker.h"

namespace hearth {
namespace {

class MainWindowModelTest : public test::MainWindowTest {
protected:
    // A copy of the bundled model cut short, under `directory`.
    static std::filesystem::path truncated_model(const test::TempDirectory& directory) {
        auto bytes = test::read_bytes(bundled_model_path());
        bytes.resize(4000);
        return directory.write("broken.gguf", bytes);
    }

    // `path` asked for as the command line does: the model that runs in the end.
    std::filesystem::path load_from_command_line(const std::filesystem::path& path) {
        QSignalSpy loaded(m_engine->worker(), &InferenceWorker::modelLoaded);
        m_window.load_model(QString::fromStdString(path.string()));
        EXPECT_TRUE(QTest::qWaitFor([&] { return !loaded.isEmpty(); }, 20000));
        QCoreApplication::processEvents();
        return loaded.isEmpty() ? std::filesystem::path() : loaded[0][0].value<ModelInfo>().path;
    }

    // `text` asked in a new conversation with `settings`; whether its answer ended.
    bool ask_anew(const core::ConversationSettings& settings,
                  const QString& text = QStringLiteral("Once upon a time")) {
        m_window.newConversation();
        m_window.apply_conversation_settings(settings);
        type_and_send(text);
        return wait_finished();
    }

    // "Tell me a joke." asked in a new conversation with `settings`: the prompt's length as the
    // engine reports it.
    int answer_prompt_tokens(core::ConversationSettings settings) {
        QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
        settings.max_tokens = 4;
        if (!ask_anew(settings, QStringLiteral("Tell me a joke.")) || finished.isEmpty()) return -1;
        return finished.back()[1].value<GenerationResult>().stats.prompt_tokens;
    }

    // The same question's prompt built directly from the model's template.
    static int expected_prompt_tokens(const std::filesystem::path& model,
                                      const ChatRenderOptions& options) {
        const auto file = GgufFile::open(model);
        const auto tokenizer = make_tokenizer(*file);
        const auto chat = ChatTemplate::from_model(*file, tokenizer->vocabulary());
        return static_cast<int>(
            build_chat_prompt(chat, *tokenizer, {{"user", "Tell me a joke."}}, options)
                .tokens.size());
    }

    // Applies a backend setting and waits for the engine to report the backend it now runs;
    // returns its name and the notice saying why it is not the one asked for, if any.
    std::pair<QString, QString> switch_backend(const QString& backend) {
        QSignalSpy backends(m_engine->worker(), &InferenceWorker::backendChanged);
        auto global = m_window.global_settings();
        global.backend = backend;
        m_window.apply_global_settings(global);
        EXPECT_TRUE(QTest::qWaitFor([&] { return !backends.isEmpty(); }, 30000));
        if (backends.isEmpty()) return {};
        QCoreApplication::processEvents();
        return {backends.back()[0].toString(), backends.back()[1].toString()};
    }
};

// The backend chosen in settings runs the model (a Vulkan device: lavapipe here); when the device
// is lost midway through an answer, the answer goes on on the CPU and nothing is lost: the text
// is the CPU's own greedy answer, the user is told, and the next message runs on the CPU.
TEST_F(MainWindowModelTest, AGpuChosenInSettingsRunsAndALostGpuFallsBackToTheCpu) {
    auto settings = m_window.current_conversation()->settings();
    settings.sampler.temperature = 0.0f;
    m_window.apply_conversation_settings(settings);
    ASSERT_TRUE(load(bundled()));  // the default: automatic, so the CPU on a machine without GPU
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    const QString cpu_answer = last_answer();
    EXPECT_EQ(cpu_answer.size() > 20, true);

    const auto [name, notice] = switch_backend("vulkan:0");
    EXPECT_TRUE(name.startsWith("vulkan")) << name.toStdString();
    EXPECT_EQ(notice, "");  // the self-test passed
    EXPECT_TRUE(child<QLabel>("status")->text().contains("Running on vulkan"));

    ASSERT_TRUE(ask_anew(settings));
    EXPECT_EQ(last_answer(), cpu_answer);  // the same greedy answer, chain-decoded on the device

    // Lost after the prompt and a chunk of the answer.
    QSignalSpy backends(m_engine->worker(), &InferenceWorker::backendChanged);
    QMetaObject::invokeMethod(m_engine->worker(), "injectDeviceLoss", Qt::BlockingQueuedConnection,
                              Q_ARG(int, 3));
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    ASSERT_TRUE(ask_anew(settings));
    ASSERT_EQ(finished.size(), 1);
    const auto result = finished[0][1].value<GenerationResult>();
    ASSERT_FALSE(result.notices.empty());
    EXPECT_EQ(result.notices[0].kind, NoticeKind::GpuLost);
    EXPECT_TRUE(result.notices[0].resumed);
    EXPECT_NE(backends.back()[1].toString().indexOf("The GPU failed"), -1);
    EXPECT_EQ(result.stats.generated_tokens, 60);
    EXPECT_EQ(QString::fromStdString(result.text), cpu_answer);
    EXPECT_EQ(last_answer(), cpu_answer);
    EXPECT_TRUE(backends.back()[0].toString().startsWith("cpu"));
    EXPECT_TRUE(m_window.current_conversation()
                    ->find(m_window.current_conversation()->thread().back())
                    ->finished);

    type_and_send("The end");
    ASSERT_TRUE(wait_finished());
    EXPECT_EQ(m_window.current_conversation()->thread().size(), 4u);
}

// A cancelled load leaves the cancel flag set; changing the backend afterwards uploads the
// weights anyway (the cancel was for that load), and the loaded model keeps answering.
TEST_F(MainWindowModelTest, ABackendChangeAfterACancelledLoadStillRunsTheModel) {
    ASSERT_TRUE(load(bundled()));
    m_engine->cancelLoad();
    const auto [name, notice] = switch_backend("vulkan:0");
    EXPECT_TRUE(name.startsWith("vulkan")) << notice.toStdString();
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    EXPECT_FALSE(last_answer().isEmpty());
}

TEST_F(MainWindowModelTest, ACorruptModelShowsTheEngineErrorAndTheAppKeepsWorking) {
    ASSERT_TRUE(load(bundled()));
    const test::TempDirectory directory;
    const auto broken = truncated_model(directory);
    EXPECT_FALSE(load(QString::fromStdString(broken.string())));
    EXPECT_TRUE(child<QLabel>("status")->text().contains("truncated or corrupt file"));
    // Why stays on screen where the model is named, after the status line moved on.
    auto* notice = child<QLabel>("modelNotice");
    EXPECT_TRUE(notice->isVisible());
    EXPECT_TRUE(notice->text().startsWith("Could not load broken.gguf:"));
    EXPECT_TRUE(notice->text().contains("truncated or corrupt file"));
    // The previous model is still loaded and answers.
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    EXPECT_FALSE(last_answer().isEmpty());
}

// A model whose template reads enable_thinking turns the settings' Thinking choice on, and a
// conversation's choice reaches the prompt the engine runs: off adds Qwen3's empty think block.
TEST_F(MainWindowModelTest, TheThinkingChoiceFollowsTheModelAndReachesThePrompt) {
    ASSERT_TRUE(load(bundled()));
    EXPECT_FALSE(m_window.template_choices().thinking);
    const test::TempDirectory directory;
    const auto qwen3 =
        test::model_with_template(directory, "stories260K.gguf", test::fixture_template("qwen3"));
    ASSERT_TRUE(load(QString::fromStdString(qwen3.string())));
    EXPECT_TRUE(m_window.template_choices().thinking);
    EXPECT_FALSE(m_window.template_choices().reasoning_effort);

    for (const auto thinking : {std::optional<bool>(), std::optional<bool>(false)}) {
        auto settings = m_window.current_conversation()->settings();
        settings.enable_thinking = thinking;
        EXPECT_EQ(answer_prompt_tokens(settings),
                  expected_prompt_tokens(qwen3, {.enable_thinking = thinking}))
            << thinking.has_value();
    }
}

// gpt-oss's reasoning_effort, chosen in a conversation's settings, reaches the prompt.
TEST_F(MainWindowModelTest, TheReasoningEffortChoiceReachesThePrompt) {
    const test::TempDirectory directory;
    const auto model = test::model_with_template(
        directory, "stories260K.gguf",
        "{% if reasoning_effort is not defined %}{% set reasoning_effort = 'medium' %}{% endif %}"
        "Effort {{ reasoning_effort }}. {% for m in messages %}{{ m.content }}{% endfor %}");
    ASSERT_TRUE(load(QString::fromStdString(model.string())));
    EXPECT_TRUE(m_window.template_choices().reasoning_effort);
    EXPECT_FALSE(m_window.template_choices().thinking);
    const int medium = expected_prompt_tokens(model, {});
    const int low = expected_prompt_tokens(model, {.reasoning_effort = "low"});
    ASSERT_NE(medium, low);  // else the check below could not fail
    auto settings = m_window.current_conversation()->settings();
    EXPECT_EQ(answer_prompt_tokens(settings), medium);
    settings.reasoning_effort = "low";
    EXPECT_EQ(answer_prompt_tokens(settings), low);
}

// The bundled model says where it is named what it is (its file names itself only "llama"):
// a story model that continues text. Any model without a chat template says it continues text;
// one with a template says nothing of the kind.
TEST_F(MainWindowModelTest, TheHeaderSaysWhatTheModelIs) {
    ASSERT_TRUE(load(bundled()));
    auto* model = child<QLabel>("model");
    auto* purpose = child<QLabel>("modelPurpose");
    EXPECT_TRUE(model->text().startsWith("Stories 260K, bundled with Hearth · Llama · 293K · F32"))
        << model->text().toStdString();
    EXPECT_FALSE(model->text().contains("llama · llama", Qt::CaseInsensitive));
    // Saying more does not widen the window past a small screen.
    m_window.resize(800, 600);
    QCoreApplication::processEvents();
    EXPECT_EQ(m_window.width(), 800);
    EXPECT_TRUE(purpose->isVisible());
    EXPECT_TRUE(purpose->text().contains("story model"));
    EXPECT_TRUE(purpose->text().contains("continues the text you write rather than chatting"));

    const test::TempDirectory directory;
    const auto copy = directory.write("my-model.gguf", test::read_bytes(bundled_model_path()));
    ASSERT_TRUE(load(QString::fromStdString(copy.string())));
    EXPECT_TRUE(model->text().startsWith("Llama · 293K · F32 · context"))
        << model->text().toStdString();
    EXPECT_TRUE(purpose->text().startsWith("No chat template: this model continues the text"));

    const auto chatml =
        test::model_with_template(directory, "stories260K.gguf", test::fixture_template("chatml"));
    ASSERT_TRUE(load(QString::fromStdString(chatml.string())));
    EXPECT_FALSE(purpose->isVisible());
}

// An empty chat welcomes: which model is loaded and what it does, and how to get another (the
// picker, the models folder the app reads). The messages take its place once there are any.
TEST_F(MainWindowModelTest, AnEmptyChatShowsAWelcome) {
    auto* welcome = child<QLabel>("welcome");
    EXPECT_TRUE(welcome->isVisible());
    EXPECT_TRUE(welcome->text().startsWith("Welcome to Hearth. No model is loaded yet."))
        << welcome->text().toStdString();
    ASSERT_TRUE(load(bundled()));
    EXPECT_TRUE(welcome->text().startsWith(
        "Welcome to Hearth. The model loaded is Stories 260K, bundled with Hearth."));
    EXPECT_TRUE(welcome->text().contains("continues the text you write"));
    EXPECT_TRUE(welcome->text().contains("Models…"));
    EXPECT_TRUE(welcome->text().contains(core::own_models_folder()));
    EXPECT_FALSE(m_window.chat_view()->isVisible());
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    EXPECT_FALSE(welcome->isVisible());
    EXPECT_TRUE(m_window.chat_view()->isVisible());
    m_window.newConversation();
    EXPECT_TRUE(welcome->isVisible());
}

// The model asked for (on the command line: load_model) is a truncated file and none runs yet:
// the header says why, and the bundled model runs instead; the reason stays after the status
// line has moved on.
TEST_F(MainWindowModelTest, AModelThatFailsToLoadFallsBackToTheBundledOneAndSaysWhy) {
    const test::TempDirectory directory;
    const auto broken = truncated_model(directory);
    EXPECT_EQ(load_from_command_line(broken), bundled_model_path());
    auto* notice = child<QLabel>("modelNotice");
    EXPECT_TRUE(notice->isVisible());
    EXPECT_TRUE(notice->text().startsWith("Could not load broken.gguf:"))
        << notice->text().toStdString();
    EXPECT_TRUE(notice->text().contains("truncated or corrupt file"));
    EXPECT_TRUE(notice->text().endsWith("Running stories260K.gguf instead."));
    EXPECT_TRUE(child<QLabel>("model")->text().startsWith("Stories 260K"));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    EXPECT_FALSE(last_answer().isEmpty());
    EXPECT_TRUE(notice->isVisible());
    // A model loaded as asked ends the notice.
    ASSERT_TRUE(load(bundled()));
    EXPECT_FALSE(notice->isVisible());
}

// With a last good model in the settings, that one runs instead.
TEST_F(MainWindowModelTest, AModelThatFailsToLoadFallsBackToTheLastGoodOne) {
    const test::TempDirectory directory;
    const auto broken = truncated_model(directory);
    const auto chatml =
        test::model_with_template(directory, "stories260K.gguf", test::fixture_template("chatml"));
    auto settings = m_window.global_settings();
    settings.last_model = QString::fromStdString(chatml.string());
    m_window.apply_global_settings(settings);
    EXPECT_EQ(load_from_command_line(broken), chatml);
    EXPECT_TRUE(child<QLabel>("modelNotice")
                    ->text()
                    .endsWith("Running " + QString::fromStdString(chatml.filename().string()) +
                              " instead."));
}

}  // namespace
}  // namespace hearth

namespace hearth {
namespace {

// The draft model chosen in Settings drafts the loaded model's greedy answers, which stay word
// for word what the model alone writes; a file of another vocabulary is refused, said, and the
// answers go on.
TEST_F(MainWindowModelTest, TheDraftModelInSettingsDraftsAndAnotherVocabularyIsSaid) {
    auto conversation = m_window.current_conversation()->settings();
    conversation.sampler.temperature = 0.0f;
    m_window.apply_conversation_settings(conversation);
    ASSERT_TRUE(load(bundled()));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    const QString plain = last_answer();

    // The bundled model drafting for itself: every guess is its own next token.
    auto global = m_window.global_settings();
    global.speculative = true;
    global.draft_model = bundled();
    m_window.apply_global_settings(global);
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    ASSERT_TRUE(ask_anew(conversation));
    EXPECT_EQ(last_answer(), plain);
    ASSERT_EQ(finished.size(), 1);
    const auto drafted = finished[0][1].value<GenerationResult>().stats;
    EXPECT_GT(drafted.draft_tokens, 20);
    EXPECT_EQ(drafted.accepted_draft_tokens, drafted.draft_tokens);

    // A draft model of another vocabulary is said, and the next answer, asked for before the
    // window has heard of it, is not ended by it: it reaches the window while that answer
    // streams (the settings go first, the answer's request right after, with no event between).
    QSignalSpy errors(m_engine->worker(), &InferenceWorker::errorOccurred);
    global.draft_model =
        QString::fromStdString(test::model_path("llama-2-tiny-random.gguf").string());
    m_window.apply_global_settings(global);
    m_window.newConversation();
    m_window.apply_conversation_settings(conversation);
    type_and_send("Once upon a time");
    ASSERT_TRUE(m_window.generating());
    ASSERT_TRUE(wait_finished());
    ASSERT_EQ(errors.size(), 1);
    const QString said = errors.back()[0].toString();
    EXPECT_TRUE(said.contains("llama-2-tiny-random.gguf is not used")) << said.toStdString();
    EXPECT_TRUE(said.contains("vocabulary has 32000 tokens")) << said.toStdString();
    ASSERT_EQ(finished.size(), 2);  // the answer ended by itself, not by the error
    EXPECT_TRUE(
        m_window.current_conversation()->find(m_window.current_conversation()->leaf())->finished);
    EXPECT_EQ(last_answer(), plain);
}

// The KV cache type chosen in Settings reaches the engine for the model already loaded: the
// engine reports a Q8_0 cache, the dashboard shows its size (at most 0.55 of F16's), answers go
// on in it, and back on F16 the first answer comes again, word for word.
TEST_F(MainWindowModelTest, TheKvCacheTypeInSettingsReachesTheEngineAndTheDashboard) {
    auto conversation = m_window.current_conversation()->settings();
    conversation.sampler.temperature = 0.0f;
    m_window.apply_conversation_settings(conversation);
    // Heads 32 wide or a multiple (the bundled model's are 8, so it keeps F16).
    const auto path = test::model_path("synth-llama-256-Q8_0.gguf");
    ASSERT_TRUE(load(QString::fromStdString(path.string())));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    const QString f16_answer = last_answer();
    ASSERT_FALSE(f16_answer.isEmpty());
    const auto* memory = child<QLabel>("memory");
    const QString f16_memory = memory->text();

    // Applies a cache type; returns the model's facts the engine reports after it, and the
    // context length they are for.
    const auto switch_cache = [&](const QString& type) -> std::pair<ModelInfo, int> {
        QSignalSpy changed(m_engine->worker(), &InferenceWorker::modelInfoChanged);
        auto global = m_window.global_settings();
        global.kv_cache = type;
        m_window.apply_global_settings(global);
        EXPECT_TRUE(QTest::qWaitFor([&] { return !changed.isEmpty(); }, 20000))
            << type.toStdString();
        QCoreApplication::processEvents();
        if (changed.isEmpty()) return {};
        return {changed.back()[0].value<ModelInfo>(), changed.back()[1].toInt()};
    };
    const auto [quantised, context] = switch_cache("q8_0");
    EXPECT_EQ(quantised.kv_cache, KvCacheType::Q8_0);
    ASSERT_GT(context, 0);
    const uint64_t f16_bytes = read_model_info(path).kv_bytes(context);
    EXPECT_LE(static_cast<double>(quantised.kv_bytes(context)),
              0.55 * static_cast<double>(f16_bytes));
    EXPECT_TRUE(f16_memory.endsWith(ui::byte_size_text(f16_bytes))) << f16_memory.toStdString();
    EXPECT_TRUE(memory->text().endsWith(ui::byte_size_text(quantised.kv_bytes(context))))
        << memory->text().toStdString();

    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    ASSERT_TRUE(ask_anew(conversation));
    ASSERT_EQ(finished.size(), 1);
    EXPECT_GT(finished[0][1].value<GenerationResult>().stats.generated_tokens, 0);
    EXPECT_FALSE(last_answer().isEmpty());

    EXPECT_EQ(switch_cache("f16").first.kv_cache, KvCacheType::F16);
    EXPECT_TRUE(memory->text().endsWith(ui::byte_size_text(f16_bytes)))
        << memory->text().toStdString();
    ASSERT_TRUE(ask_anew(conversation));
    EXPECT_EQ(last_answer(), f16_answer);
}
}  // namespace
}  // namespace hearth
