// The chat header's model and mode pickers (issue 14 item 12): they show what is set now, and the
// mode dropdown only ever sends one of the config's modes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PERMISSION_MODES } from '../../../src/core/config';
import { chosenMode, headerPickerState, PERMISSION_MODE_CHOICES } from '../../../media/header-format';

test('issue 14 item 12: the mode dropdown offers exactly the config’s modes and accepts nothing else', () => {
  assert.deepEqual(PERMISSION_MODE_CHOICES, PERMISSION_MODES);
  assert.equal(chosenMode('auto-edit'), 'auto-edit');
  assert.equal(chosenMode('yolo'), undefined);
  assert.equal(chosenMode(''), undefined);
});

test('issue 14 item 12: the pickers show the current model by name and the current mode, with the full label and the mode’s meaning as tooltips', () => {
  const state = headerPickerState({
    permissionMode: 'auto-edit',
    modelLabel: 'qwen2.5-coder:7b at http://127.0.0.1:11434/v1',
    modelName: 'qwen2.5-coder:7b',
    running: false,
  });
  assert.equal(state.mode, 'auto-edit');
  assert.match(state.modeTitle, /file edits .* without asking; commands still ask/);
  assert.equal(state.modelText, 'qwen2.5-coder:7b');
  assert.match(state.modelTitle, /at http:\/\/127\.0\.0\.1:11434\/v1/);
  const none = headerPickerState({ permissionMode: 'strict', modelLabel: 'no model', running: false });
  assert.equal(none.modelText, 'Select model');
  assert.equal(none.mode, 'strict');
});
