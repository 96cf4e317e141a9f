// Lives on the engine thread and owns the model; talks to the GUI only through queued signals.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace hearth {

class Model;
class Tokenizer;
class Session;
class Backend;

class InferenceWorker final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InferenceWorker)

public:
    explicit InferenceWorker(std::atomic<bool>& stop_flag);
    ~InferenceWorker() override;

public slots:
    void loadModel(const QString& path);
    void generate(const QString& prompt);

signals:
    void modelLoaded(const QString& description);
    void tokensReady(const QString& text);
    void generationFinished(const QString& summary);
    void errorOccurred(const QString& message);

private:
    std::atomic<bool>& m_stop;
    std::unique_ptr<Model> m_model;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<Session> m_session;  // declared last: it refers to the others
};

}  // namespace hearth
