import type { ThreadSummary } from '../../../../src/sdk/thread-types';
import { useLoad } from '../../load';
import { listThreads, sendToThread } from '../../requests/threads';
import { Link, navigate } from '../../router';
import { formatTime, Notice } from '../../ui';
import { MessageComposer } from './chat';
import './chat.css';

const PAGE_SIZE = 20;

function Threads({ items }: { items: ThreadSummary[] }) {
  return (
    <ul class="chat-threads">
      {items.map((item) => (
        <li key={item.threadId}>
          <Link href={`/assistant/${encodeURIComponent(item.threadId)}`}>{item.title}</Link>
          <span class="muted"> · {formatTime(item.updatedAt)}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * The assistant: a new conversation starts with its first message (the thread is named
 * here, so the page can follow it the moment it is sent), and earlier ones are listed.
 */
export function AssistantScreen({ workspaceId }: { workspaceId: string }) {
  const threads = useLoad(() => listThreads(0, PAGE_SIZE), []);
  const start = async (text: string) => {
    const threadId = crypto.randomUUID();
    await sendToThread(workspaceId, threadId, text);
    navigate(`/assistant/${threadId}`);
  };
  return (
    <>
      <p class="lede">
        Tell the assistant what you need. It finds a skill that does it and asks you before it runs one, since a run costs
        credits.
      </p>
      <MessageComposer label="Start a conversation" onSend={start} />
      <section aria-labelledby="earlier-threads">
        <h2 id="earlier-threads">Your conversations</h2>
        {threads.error && <Notice kind="error">{threads.error}</Notice>}
        {threads.data && threads.data.items.length === 0 && <p class="muted">None yet: your first one will be listed here.</p>}
        {threads.data && threads.data.items.length > 0 && <Threads items={threads.data.items} />}
        {threads.data?.hasMore && (
          <p class="muted">
            Showing the {PAGE_SIZE} latest of {threads.data.total}.
          </p>
        )}
      </section>
    </>
  );
}
