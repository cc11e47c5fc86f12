import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfig } from '../../../../src/core/config';
import { keyEnvironmentVariables, modelListRequest, secretKeyFor, setupHint } from '../../../../src/hosts/vscode/model-setup';

test('§9 Keys: a stored key belongs to one provider and one server origin, so it is never sent elsewhere', () => {
  assert.equal(secretKeyFor('openai', 'https://api.openai.com/v1'), 'zuno.apiKey.openai.https://api.openai.com');
  assert.equal(
    secretKeyFor('openai', 'https://api.openai.com/v2/'),
    secretKeyFor('openai', 'https://api.openai.com/v1'),
    'same server, same key',
  );
  assert.notEqual(secretKeyFor('openai', 'https://openrouter.ai/api/v1'), secretKeyFor('openai', 'https://api.openai.com/v1'));
  assert.notEqual(secretKeyFor('anthropic', 'https://api.openai.com/v1'), secretKeyFor('openai', 'https://api.openai.com/v1'));
});

test('issue 4 Models: a key is imported from model.api_key_env first, then ZUNO_API_KEY', () => {
  assert.deepEqual(keyEnvironmentVariables(parseConfig({})), ['ZUNO_API_KEY']);
  assert.deepEqual(keyEnvironmentVariables(parseConfig({ model: { api_key_env: 'OPENROUTER_KEY' } })), ['OPENROUTER_KEY', 'ZUNO_API_KEY']);
});

test('issue 4 First run: with no model set, the sidebar says exactly how to set one up, naming the Ollama default', () => {
  const hint = setupHint(parseConfig({}), undefined) ?? '';
  assert.match(hint, /No model is set\. Run “Zuno: Select Model”/);
  assert.match(hint, /http:\/\/127\.0\.0\.1:11434\/v1 \(a local Ollama/);
  assert.match(hint, /zuno\.model\.name/);
  assert.equal(setupHint(parseConfig({ model: { name: 'qwen2.5-coder:7b' } }), undefined), undefined);
  assert.doesNotMatch(setupHint(parseConfig({ model: { base_url: 'https://openrouter.ai/api/v1' } }), undefined) ?? '', /Ollama/);
  assert.match(setupHint(parseConfig({ model: { provider: 'anthropic' } }), undefined) ?? '', /Anthropic model.*Set API Key/);
});

test('issue 4 First run: vscode-lm without any model says where to get one; with models it needs no hint', () => {
  assert.match(setupHint(parseConfig({ model: { provider: 'vscode-lm' } }), 0) ?? '', /No VS Code language model is available/);
  assert.equal(setupHint(parseConfig({ model: { provider: 'vscode-lm' } }), 2), undefined);
  assert.equal(setupHint(parseConfig({ model: { provider: 'vscode-lm' } }), undefined), undefined, 'not known yet: no false alarm');
});

test('issue 4 Select Model: the model list request speaks each protocol', () => {
  assert.deepEqual(modelListRequest('openai', 'http://127.0.0.1:11434/v1/', undefined), {
    url: 'http://127.0.0.1:11434/v1/models',
    headers: {},
  });
  assert.deepEqual(modelListRequest('openai', 'https://api.openai.com/v1', 'k'), {
    url: 'https://api.openai.com/v1/models',
    headers: { authorization: 'Bearer k' },
  });
  assert.deepEqual(modelListRequest('anthropic', 'https://api.anthropic.com/v1', 'k').headers, {
    'anthropic-version': '2023-06-01',
    'x-api-key': 'k',
  });
});
