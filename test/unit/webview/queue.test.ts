// Messages typed while Zuno works (issue 14 item 7): shown as queued, and nothing typed is lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { restoredDraft } from '../../../media/drafts';
import { ViewModel } from '../../../media/view-model';

test("issue 14 item 7: the view keeps the host's queue, and a snapshot starts it empty until the host says otherwise", () => {
  const model = new ViewModel();
  const before = model.chromeVersion;
  model.receive({ type: 'queue', items: [{ id: 'queued-1', text: 'also the README' }] });
  assert.deepEqual(model.queue, [{ id: 'queued-1', text: 'also the README' }]);
  assert.ok(model.chromeVersion > before, 'the queue panel is redrawn');
  model.receive({
    type: 'snapshot',
    sessionId: undefined,
    events: [],
    approvals: [],
    questions: [],
    status: { permissionMode: 'strict', modelLabel: 'm', running: false },
  });
  assert.deepEqual(model.queue, []);
});

test('issue 14 item 7: text handed back goes into the composer before what is already typed, never replacing it', () => {
  assert.equal(restoredDraft('the lost message', ''), 'the lost message');
  assert.equal(restoredDraft('the lost message', '  '), 'the lost message');
  assert.equal(restoredDraft('the lost message', 'what I typed since'), 'the lost message\n\nwhat I typed since');
});
