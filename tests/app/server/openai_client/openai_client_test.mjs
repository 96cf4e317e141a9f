// hearth-server driven by OpenAI's official Node client, as an application would use it: a
// plain answer, a streamed one, a JSON-schema answer, seeded sampling repeated, a stream aborted
// mid-answer (its row must be freed), and a wrong key. Starts the server on a free port and
// ends it with SIGTERM, which must exit 0.
//   node openai_client_test.mjs HEARTH_SERVER MODEL.gguf
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import OpenAI from 'openai';

const [serverPath, modelPath] = process.argv.slice(2);
const key = 'sk-hearth-openai-client-test';
const model = 'stories260K';
const messages = [
  { role: 'system', content: 'You tell stories.' },
  { role: 'user', content: 'Once upon a time' },
];

// Everything must finish well inside ctest's limit; a hang fails with this instead.
const deadline = setTimeout(() => {
  console.error('FAIL: the client test did not finish within 5 minutes');
  process.exit(1);
}, 300_000);

function startServer() {
  // The CPU backend: the sanitizer build checks the server for leaks, and Mesa's Vulkan
  // driver, probed by the automatic choice, leaks a little of its own.
  const server = spawn(serverPath, ['-m', modelPath, '--backend', 'cpu', '--port', '0', '--ctx',
                                    '4096', '--rows', '2', '-t', '2', '--api-key', key],
                       { stdio: ['ignore', 'inherit', 'pipe'] });
  let log = '';
  const listening = new Promise((resolve, reject) => {
    server.stderr.on('data', (data) => {
      log += data;
      const found = /on http:\/\/127\.0\.0\.1:(\d+) /.exec(log);
      if (found) resolve(Number(found[1]));
    });
    server.on('exit', (code) => reject(new Error(`hearth-server exited (${code}) before listening:\n${log}`)));
  });
  const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })));
  return { server, listening, exited, log: () => log };
}

async function metric(port, name) {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`,
                               { headers: { Authorization: `Bearer ${key}` } });
  const line = (await response.text()).split('\n').find((l) => l.startsWith(`${name} `));
  assert.ok(line, `/metrics has no ${name}`);
  return Number(line.split(' ')[1]);
}

async function eventually(condition, what) {
  for (let i = 0; i < 3000; ++i) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`not within 30 s: ${what}`);
}

const cases = {
  async 'models list the served model'(client) {
    const models = await client.models.list();
    assert.equal(models.data[0].id, model);
  },

  async 'a plain answer'(client) {
    const answer = await client.chat.completions.create(
      { model, messages, max_tokens: 24, temperature: 0 });
    assert.equal(answer.object, 'chat.completion');
    assert.equal(answer.choices[0].message.role, 'assistant');
    assert.ok(answer.choices[0].message.content.length > 0);
    assert.equal(answer.choices[0].finish_reason, 'length');
    assert.equal(answer.usage.completion_tokens, 24);
    assert.equal(answer.usage.total_tokens, answer.usage.prompt_tokens + 24);
    return answer.choices[0].message.content;
  },

  async 'a streamed answer equals the plain one'(client, plain) {
    const stream = await client.chat.completions.create(
      { model, messages, max_tokens: 24, temperature: 0, stream: true,
        stream_options: { include_usage: true } });
    let text = '';
    let finish = null;
    let usage = null;
    let role = null;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices) {
        role ??= choice.delta.role;
        text += choice.delta.content ?? '';
        finish = choice.finish_reason ?? finish;
      }
    }
    assert.equal(role, 'assistant');
    assert.equal(text, plain);
    assert.equal(finish, 'length');
    assert.equal(usage.completion_tokens, 24);
  },

  async 'a json_schema answer parses and matches'(client) {
    const answer = await client.chat.completions.create({
      model, messages, temperature: 0,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'pet',
          schema: {
            type: 'object',
            properties: { mood: { enum: ['happy', 'sad'] }, age: { type: 'integer' } },
            required: ['mood', 'age'],
          },
        },
      },
    });
    const value = JSON.parse(answer.choices[0].message.content);
    assert.ok(['happy', 'sad'].includes(value.mood), JSON.stringify(value));
    assert.ok(Number.isInteger(value.age), JSON.stringify(value));
    assert.equal(answer.choices[0].finish_reason, 'stop');
  },

  async 'the same seed gives the same text'(client) {
    const ask = () => client.chat.completions.create(
      { model, messages, max_tokens: 32, temperature: 0.9, seed: 42 });
    const first = (await ask()).choices[0].message.content;
    const second = (await ask()).choices[0].message.content;
    assert.ok(first.length > 0);
    assert.equal(second, first);
  },

  async 'an aborted stream frees its row'(client, _, port) {
    const before = await metric(port, 'hearth_generated_tokens_total');
    const controller = new AbortController();
    const stream = await client.completions.create(
      { model, prompt: 'Once upon a time', max_tokens: 4000, temperature: 0, stream: true },
      { signal: controller.signal });
    let chunks = 0;
    try {
      for await (const chunk of stream) {
        if (chunk.choices[0]?.text && ++chunks === 3) controller.abort();
      }
    } catch (error) {
      // The client ends the loop quietly on abort; an abort error is as good.
      assert.ok(error instanceof OpenAI.APIUserAbortError || error.name === 'AbortError', error);
    }
    // The loop ended early (chunks already received when it aborted may still come out).
    assert.ok(chunks >= 3 && chunks < 4000, `${chunks} chunks`);
    await eventually(async () => (await metric(port, 'hearth_rows_busy')) === 0, 'rows free');
    // Cut short by the abort, not finished: 4000 tokens take seconds.
    assert.ok(await metric(port, 'hearth_generated_tokens_total') - before < 4000);
  },

  async 'a wrong key is refused with 401'(_, __, port) {
    const wrong = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-wrong',
                               maxRetries: 0 });
    await assert.rejects(
      () => wrong.chat.completions.create({ model, messages, max_tokens: 4 }),
      (error) => error instanceof OpenAI.AuthenticationError && error.status === 401);
  },
};

const { server, listening, exited, log } = startServer();
let failed = false;
try {
  const port = await listening;
  const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: key,
                              maxRetries: 0, timeout: 120_000 });
  let plain;
  for (const [name, run] of Object.entries(cases)) {
    try {
      const value = await run(client, plain, port);
      if (name === 'a plain answer') plain = value;
      console.log(`ok: ${name}`);
    } catch (error) {
      failed = true;
      console.error(`FAIL: ${name}: ${error.stack ?? error}`);
    }
  }
} catch (error) {
  failed = true;
  console.error(`FAIL: ${error.stack ?? error}`);
}
server.kill('SIGTERM');
const { code, signal } = await exited;
if (code !== 0) {
  failed = true;
  console.error(`FAIL: hearth-server ended with ${code ?? signal} after SIGTERM\n${log()}`);
}
clearTimeout(deadline);
process.exit(failed ? 1 : 0);
