// Errors phrased for the editor, with buttons that fix them (issue 14 item 7). The inputs are the
// runtime's real messages, so a reworded message in src/agent breaks this test, not the sidebar.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiKeyHint, connectionError, statusError } from '../../../src/agent/provider';
import { imageRefusal } from '../../../src/agent/images';
import { parseConfig } from '../../../src/core/config';
import { editorWording, errorActions } from '../../../src/webview/editor-words';
import { sessionEndLabel } from '../../../media/presentation';
import { ViewModel } from '../../../media/view-model';

const CLI_WORDS = /--[a-z][a-z-]+|(?<!zuno\.)model\.(?:base_url|name|max_steps|api_key_env)\b|ZUNO_API_KEY|ZUNO_MODEL/;

test("issue 14 item 7: the provider's CLI-worded errors read as settings and commands, with the right buttons", async () => {
  const refused = connectionError(Object.assign(new Error('fetch failed'), { code: 'ECONNREFUSED' }), 'http://127.0.0.1:11434/v1').message;
  const unresolved = connectionError(Object.assign(new Error('fetch failed'), { code: 'ENOTFOUND' }), 'http://nowhere.invalid/v1').message;
  const noKey = `The model server rejected the request as unauthorized (HTTP 401). ${apiKeyHint({ key: undefined, envVar: undefined })}`;
  const context = { baseUrl: 'http://127.0.0.1:1/v1', model: 'gpt-x', apiKey: { key: undefined, envVar: undefined } };
  const unknownModel = (
    await statusError(new Response('{"error":"model not found"}', { status: 404 }), {
      ...context,
      listModels: async () => ['qwen3', 'llama3'],
    })
  ).message;
  const notFound = (await statusError(new Response('{"error":"model not found"}', { status: 404 }), context)).message;
  const cases: [string, string[]][] = [
    [refused, ['configure-model', 'retry']],
    [unresolved, ['configure-model', 'retry']],
    [noKey, ['set-api-key', 'retry']],
    [unknownModel, ['configure-model', 'retry']],
    [notFound, ['configure-model', 'retry']],
    ['No model is set: pass --model NAME, set model.name in the config file, or set ZUNO_MODEL.', ['configure-model', 'retry']],
    ['The model server answered HTTP 503.', ['retry']],
  ];
  for (const [message, actions] of cases) {
    const worded = editorWording(message);
    assert.doesNotMatch(worded, CLI_WORDS, worded);
    assert.deepEqual(errorActions(message), actions, message);
  }
  assert.match(editorWording(noKey), /set one with "Zuno: Set API Key"/);
});

test('issue 14 item 7: a stored step-limit message reads for the editor in the transcript', () => {
  const label = sessionEndLabel({
    kind: 'session-end',
    key: 'k',
    version: 0,
    reason: 'step-limit',
    message: 'Stopped after 25 model steps (model.max_steps). Continue with --session 2645d8e6, or raise model.max_steps.',
  });
  assert.doesNotMatch(label, /--session|model\.max_steps/);
  assert.match(label, /Send a message to continue, or raise the zuno\.model\.maxSteps setting\./);
});

test("issue 14 item 7: the view keeps an error's buttons until it is dismissed", () => {
  const model = new ViewModel();
  model.receive({ type: 'error', text: 'x', actions: ['set-api-key', 'retry'] });
  assert.deepEqual(model.errorActions, ['set-api-key', 'retry']);
  model.dismissError();
  assert.deepEqual([model.error, model.errorActions], [undefined, []]);
  model.receive({ type: 'error', text: 'refused' });
  assert.deepEqual(model.errorActions, [], 'a plain refusal has no buttons');
});

test('issue 14: the refusal of an image names the editor setting, not the config key', () => {
  const said = editorWording(imageRefusal(parseConfig({ model: { name: 'qwen' } }), 1) ?? '');
  assert.match(said, /turn on the zuno\.model\.images setting; otherwise remove the images/);
  assert.doesNotMatch(said, /model\.images \(/);
});
