import { useMemo, useState } from 'preact/hooks';
import { messageOf } from '../../api';
import { useFollowingScroll } from '../../follow-scroll';
import { answerApproval, sendToThread } from '../../requests/threads';
import { Link } from '../../router';
import { Notice } from '../../ui';
import { useThread } from './chat-stream';
import { type ChatItem, chatViewOf } from './chat-view';
import './chat.css';

/** Allow or refuse what the assistant asks to do; someone else's answer (409) is said, not thrown. */
function ApprovalButtons({ threadId, approvalId }: { threadId: string; approvalId: string }) {
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const answer = async (approved: boolean) => {
    setState({ busy: true });
    try {
      await answerApproval(threadId, approvalId, approved);
    } catch (error) {
      setState({ busy: false, error: messageOf(error) });
    }
  };
  return (
    <div class="chat-approval-actions">
      <button type="button" class="primary" disabled={state.busy} onClick={() => answer(true)}>
        Allow
      </button>
      <button type="button" disabled={state.busy} onClick={() => answer(false)}>
        Don’t allow
      </button>
      {state.error && <Notice kind="error">{state.error}</Notice>}
    </div>
  );
}

function RunLink({ executionId }: { executionId: string | undefined }) {
  if (!executionId) return null;
  return (
    <>
      {' '}
      <Link href={`/runs/${encodeURIComponent(executionId)}`}>Open the run</Link>
    </>
  );
}

function Item({ item, threadId }: { item: ChatItem; threadId: string }) {
  switch (item.kind) {
    case 'user':
      return (
        <li class="chat-item chat-user">
          <span class="sr-only">You: </span>
          {item.text}
        </li>
      );
    case 'assistant':
      return (
        <li class="chat-item chat-assistant" aria-busy={item.streaming}>
          <span class="chat-who">Assistant</span>
          <span class="chat-text">{item.text}</span>
        </li>
      );
    case 'approval':
      return (
        <li class="chat-item chat-approval">
          <span class="chat-who">The assistant asks to</span>
          <span class="chat-text">{item.label}</span>
          {item.waiting && <ApprovalButtons threadId={threadId} approvalId={item.approvalId} />}
        </li>
      );
    case 'result':
      return (
        <li class={`chat-item chat-result chat-result-${item.status}`}>
          {item.words}
          <RunLink executionId={item.executionId} />
        </li>
      );
    case 'notice':
      return (
        <li class="chat-item chat-notice">
          {item.words}
          <RunLink executionId={item.executionId} />
        </li>
      );
    case 'stopped':
      return (
        <li class="chat-item chat-stopped">
          The assistant stopped. {item.reason || 'Something went wrong; send your message again.'}
        </li>
      );
  }
}

/** Writes a message; Enter sends it, Shift+Enter starts a new line. What could not be sent stays. */
export function MessageComposer({ onSend, label }: { onSend: (text: string) => Promise<void>; label: string }) {
  const [text, setText] = useState('');
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const send = async () => {
    const message = text.trim();
    if (message === '' || state.busy) return;
    setState({ busy: true });
    try {
      await onSend(message);
      setText('');
      setState({ busy: false });
    } catch (error) {
      setState({ busy: false, error: messageOf(error) });
    }
  };
  return (
    <form
      class="chat-composer"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <label for="chat-message">{label}</label>
      <textarea
        id="chat-message"
        rows={3}
        value={text}
        placeholder="Ask for something a skill can do, for example: make a QR code for skillet.dev"
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey) {
            event.preventDefault();
            void send();
          }
        }}
      />
      <div class="row">
        <button type="submit" class="primary" disabled={state.busy || text.trim() === ''}>
          {state.busy ? 'Sending…' : 'Send'}
        </button>
        <span class="muted">Enter sends; Shift+Enter starts a new line.</span>
      </div>
      {state.error && <Notice kind="error">{state.error}</Notice>}
    </form>
  );
}

/** One conversation with the assistant: what was said, live, and a box to say more. */
export function ChatScreen({ workspaceId, threadId }: { workspaceId: string; threadId: string }) {
  const thread = useThread(workspaceId, threadId);
  const view = useMemo(() => chatViewOf(thread.records), [thread.records]);
  const log = useFollowingScroll<HTMLDivElement>(thread.records.length);
  return (
    <>
      <p>
        <Link href="/assistant">All conversations</Link>
      </p>
      {view.items.length === 0 ? (
        <p class="muted">Nothing said yet.</p>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to be scrolled.
        <div role="log" aria-label="Conversation" class="chat-log" ref={log} tabIndex={0}>
          <ol class="chat-items">
            {view.items.map((item) => (
              <Item key={item.key} item={item} threadId={threadId} />
            ))}
          </ol>
        </div>
      )}
      <p class="chat-status muted" role="status">
        {view.asking ? 'The assistant is waiting for your answer.' : view.answering ? 'The assistant is answering…' : ''}
      </p>
      {thread.lost && (
        <Notice kind="error">
          {thread.lost}{' '}
          <button type="button" onClick={thread.reconnect}>
            Reconnect
          </button>
        </Notice>
      )}
      <MessageComposer label="Your message" onSend={async (text) => void (await sendToThread(workspaceId, threadId, text))} />
    </>
  );
}
