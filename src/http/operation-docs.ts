/**
 * What each operation of the API does, for the OpenAPI document and the reference page
 * built from it: a summary (one line), a description (what to know before calling it) and
 * the group it belongs to. Keyed by method and path as the document writes them; a test
 * fails when a route has no entry here or an entry names no route.
 */
export interface OperationDoc {
  tag: string;
  summary: string;
  description: string;
}

type Entry = [tag: string, summary: string, description: string];

const DOCS: Record<string, Entry> = {
  'POST /api/v1/auth/signup': [
    'Accounts',
    'Create an account',
    'Creates a person with an email and a password of at least 8 characters, and their personal workspace. Answers with a session token (x-auth-token) as sign-in does.',
  ],
  'POST /api/v1/auth/login': [
    'Accounts',
    'Sign in',
    'Exchanges an email and password for a session token to send as x-auth-token.',
  ],
  'POST /api/v1/auth/logout': ['Accounts', 'Sign out', 'Ends the session the token belongs to; the token stops working at once.'],
  'PUT /api/v1/auth/password': [
    'Account',
    'Change your password',
    'Needs the current password. Your other sessions end; API keys stay.',
  ],
  'POST /api/v1/auth/password-reset': [
    'Account',
    'Choose a new password with a reset link',
    'The token from a one-time link an operator made (`skillet users reset-password`). Every session ends.',
  ],
  'POST /api/v1/auth/password-reset/request': [
    'Account',
    'Ask for a reset link by mail',
    'Mails a one-time link to the address if it has an account; the answer is the same either way. Needs SMTP on the server.',
  ],
  'GET /api/v1/auth/connected-apps': [
    'Account',
    'List your connected apps',
    'Apps you allowed to act for you over OAuth, with the workspace and the access each holds.',
  ],
  'DELETE /api/v1/auth/connected-apps/{id}': [
    'Account',
    'Disconnect an app',
    'Every token the app holds stops working at once; it must ask you again to come back.',
  ],
  'GET /api/v1/auth/sessions': ['Account', 'List your sessions', 'Where you are signed in, newest first.'],
  'DELETE /api/v1/auth/sessions/{id}': ['Account', 'Sign a session out', 'Ends one of your sessions at once.'],
  'GET /api/v1/me': [
    'Accounts',
    'Who is calling',
    'The person, the workspace the credential acts in, and the kind of credential used.',
  ],
  'POST /api/v1/workspaces': ['Workspaces', 'Create a team workspace', 'Creates a workspace with the caller as its owner.'],
  'GET /api/v1/workspaces': [
    'Workspaces',
    'List your workspaces',
    'The workspaces the caller belongs to, with their role in each.',
  ],
  'GET /api/v1/workspaces/{id}/members': [
    'Workspaces',
    'List members',
    "A workspace's members and their roles; members of the workspace only.",
  ],
  'POST /api/v1/workspaces/{id}/members': [
    'Workspaces',
    'Add a member',
    'Adds an existing account by email with a role. Owners and admins only; only an owner adds an owner.',
  ],
  'PATCH /api/v1/workspaces/{id}': ['Workspaces', 'Rename a workspace', 'A team workspace’s new name; owners and admins only.'],
  'PATCH /api/v1/workspaces/{id}/members/{userId}': [
    'Workspaces',
    'Change a member’s role',
    'Owner, admin or member. Only an owner changes owners, and a workspace always keeps one.',
  ],
  'DELETE /api/v1/workspaces/{id}/members/{userId}': [
    'Workspaces',
    'Remove a member, or leave',
    'Their keys for the workspace are revoked and their sessions return to their personal workspace. Anyone may remove themself, except the last owner.',
  ],
  'POST /api/v1/workspaces/{id}/invitations': [
    'Workspaces',
    'Invite someone by email',
    'Mails the address a link to join the team with the role given; it works once, for INVITATION_TTL_DAYS (7 by default). Owners and admins only; only an owner invites an owner. Needs SMTP on the server. The token is never answered: it is only in the mail.',
  ],
  'GET /api/v1/workspaces/{id}/invitations': [
    'Workspaces',
    'List open invitations',
    'Invitations not yet accepted or revoked, the newest first; `status` is `expired` once the link no longer works. Owners and admins only.',
  ],
  'POST /api/v1/workspaces/{id}/invitations/{invitationId}/resend': [
    'Workspaces',
    'Resend an invitation',
    'Mails a new link, good for the full time again; the old link stops working. Limited to 20 invitation mails a workspace and 3 an address an hour.',
  ],
  'DELETE /api/v1/workspaces/{id}/invitations/{invitationId}': [
    'Workspaces',
    'Revoke an invitation',
    'Its link stops working at once.',
  ],
  'POST /api/v1/invitations/preview': [
    'Workspaces',
    'See what an invitation link offers',
    'Public: the token from the link stands in for a sign-in. Answers the team, the invited email and the role; 410 EXPIRED says in words whether the link was used, revoked or expired.',
  ],
  'POST /api/v1/invitations/accept': [
    'Workspaces',
    'Accept an invitation',
    'Joins the team with the role invited, once. Needs a session (x-auth-token) of the account with the invited email.',
  ],
  'PUT /api/v1/workspaces/current': [
    'Workspaces',
    'Switch the active workspace',
    'Moves an API key to another workspace its owner belongs to. Keys bound to a workspace at creation cannot move.',
  ],
  'POST /api/v1/keys': [
    'API keys',
    'Create an API key',
    'Creates a key bound to the current workspace. Its plaintext is in this answer only; store it now. The number of keys depends on the plan.',
  ],
  'GET /api/v1/keys': [
    'API keys',
    'List API keys',
    "The caller's keys with a preview, their workspace, when they were last used and their activity.",
  ],
  'DELETE /api/v1/keys/{id}': [
    'API keys',
    'Revoke an API key',
    'Revokes the key at once. A signed-in person may revoke any of their keys; a key may revoke itself.',
  ],
  'POST /api/v1/activate': [
    'Device activation',
    'Start a device activation',
    'For a CLI or agent without a browser: answers a device code to poll with and a user code the person approves in the app. Rate limited per client address.',
  ],
  'POST /api/v1/activate/poll': [
    'Device activation',
    'Poll an activation',
    'Always 200 with a status. Only the one call that sees `approved` receives the API key; keep polling while `pending`, at the interval given.',
  ],
  'GET /api/v1/activate/lookup': [
    'Device activation',
    'Look up an activation code',
    'What a signed-in person sees before approving: the client that asked, from where, and the code’s state.',
  ],
  'POST /api/v1/activate/confirm': [
    'Device activation',
    'Approve an activation',
    'Approves the code for the current workspace (or the one named by x-workspace-id, which the caller must belong to).',
  ],
  'POST /api/v1/activate/deny': [
    'Device activation',
    'Deny an activation',
    'Refuses the code; the polling client is told `denied`.',
  ],
  'POST /api/v1/agents/connect': [
    'Agents',
    'Ask to narrow a key’s scopes',
    'Called with an API key: asks its owner to approve a smaller set of scopes for it. Answers a request to watch.',
  ],
  'GET /api/v1/agents/connect/{requestId}': [
    'Agents',
    'Read a scope request',
    'The scopes asked for and whether the owner has decided.',
  ],
  'POST /api/v1/agents/connect/{requestId}/approve': [
    'Agents',
    'Approve a scope request',
    'The key keeps only the scopes asked for.',
  ],
  'POST /api/v1/agents/connect/{requestId}/deny': ['Agents', 'Deny a scope request', 'The key keeps the scopes it had.'],
  'POST /api/v1/executions': [
    'Runs',
    'Create an execution',
    'Creates an execution of a skill with its input, waiting (idle). Open its stream, then post a user.message to start it. Input that does not fit the skill’s declared input is refused here, before anything is charged. Send Idempotency-Key to make retries safe.',
  ],
  'POST /api/v1/runs': [
    'Runs',
    'Run a skill in one call',
    'Creates an execution and starts its run with the input, in one call (the input is sent once). Without Prefer it answers 202 at once; with `Prefer: wait` (or `wait=N` seconds, at most 60) it waits for the result: 201 with the final status, output and artifacts when the run ended in time, else 202 with where it stands. Either way sseUrl follows the run (add lastSeq to skip what you have), statusUrl reads it and webUrl is its page in the app. A client that stops waiting leaves the run running. Refused like a start: 402 without the credits, 429 EXECUTION_RUNNING while the workspace runs another.',
  ],
  'GET /api/v1/executions': [
    'Runs',
    'List executions',
    'The workspace’s executions, newest first, with paging and filters by source (channels), interface and state (statuses). Executions that never started leave the list after 15 minutes.',
  ],
  'GET /api/v1/executions/{executionId}/stream-token': [
    'Runs',
    'Get a stream URL',
    'A short-lived signed URL for the execution’s event stream. The URL is the credential; fetch a new one for every reconnect.',
  ],
  'POST /api/v1/executions/{executionId}/events': [
    'Runs',
    'Start or interrupt a run',
    'A user.message starts a run of an idle execution (its first, or a resume); a user.interrupt stops the running one. One run per workspace at a time: another answers 429 EXECUTION_RUNNING.',
  ],
  'GET /api/v1/executions/{executionId}/status': [
    'Runs',
    'Read an execution’s status',
    'Its state, skill, start time and the text it has output so far.',
  ],
  'GET /api/v1/executions/{executionId}/event-times': [
    'Runs',
    'Read when each event happened',
    'The time each stored event of the execution was recorded, by sequence, 1,000 at a time: pass the last sequence as after for the next page. The stream’s frames carry no time.',
  ],
  'POST /api/v1/executions/{executionId}/rerun': [
    'Runs',
    'Rerun with new input',
    'Starts a new execution of a completed one’s skill with new input; the child names its parent.',
  ],
  'POST /api/v1/executions/{executionId}/cancel': [
    'Runs',
    'Cancel a run',
    'Stops the running run (stop reason interrupt) and says what state it left. Cancelling an idle execution changes nothing.',
  ],
  'POST /api/v1/skills': [
    'Skills',
    'Install a skill from a folder',
    'Sends a skill’s folder (its SKILL.md at the top, paths relative, contents base64; at most 200 files and 30 MB) to install it into the workspace, where it runs by its slug in the sandbox. The slug is the optional slug field, else the SKILL.md’s, else folderName. 409 when the slug is taken (by one of the server’s skills or the workspace’s): send another in slug; 409 too when the workspace has as many skills as it may (WORKSPACE_SKILL_LIMIT), and 413 when the folder would pass what the workspace may keep (WORKSPACE_STORAGE_LIMIT_BYTES).',
  ],
  'GET /api/v1/marketplace/skills': [
    'Skills',
    'List skills',
    'The skills the workspace can run, in slug order: this server’s (source server) and those installed into the workspace (source workspace), with their price, what input they take (a sentence, examples and, when declared, a schema) and a default input.',
  ],
  'GET /api/v1/skills': [
    'Skills',
    'List skills (same as the marketplace)',
    'The same list as GET /api/v1/marketplace/skills: this server’s skills and the workspace’s own, each with its source.',
  ],
  'GET /api/v1/skills/{slug}': [
    'Skills',
    'Get a skill',
    'One skill the workspace can run, this server’s or its own, in the list’s shape. 404 for a slug the workspace does not have, including another workspace’s skill.',
  ],
  'PUT /api/v1/skills/{slug}': [
    'Skills',
    'Update an installed skill',
    'Installs a new version of a skill installed into the workspace from its folder (the same body as installing, without slug), keeping its slug; the old version’s files go. Owners and admins only (403 for members and for this server’s own skills); 404 for a slug the workspace has not installed; 409 while a run of the skill is in progress. The workspace’s limits count the new version in place of the old.',
  ],
  'DELETE /api/v1/skills/{slug}': [
    'Skills',
    'Remove an installed skill',
    'Removes a skill installed into the workspace: it no longer lists or runs, its files go and its space and count are freed. Past runs keep their history and artifacts. Owners and admins only (403 for members and for this server’s own skills); 404 for a slug the workspace has not installed; 409 while a run of the skill is in progress.',
  ],
  'GET /api/v1/artifacts': [
    'Artifacts',
    'List artifacts',
    'With limit or offset: a page with a total. Without limit: a bare array (an older shape kept for its clients).',
  ],
  'GET /api/v1/artifacts/{artifactId}': [
    'Artifacts',
    'Read an artifact',
    'The artifact with its content for a single text file.',
  ],
  'DELETE /api/v1/artifacts/{artifactId}': ['Artifacts', 'Delete an artifact', 'Deletes it and its files for good.'],
  'GET /api/v1/artifacts/{artifactId}/manifest': [
    'Artifacts',
    'Read a bundle’s manifest',
    'The files of a multi-file artifact with their sizes, types and checksums; 404 for a single file.',
  ],
  'GET /api/v1/artifacts/{artifactId}/download': [
    'Artifacts',
    'Download an artifact',
    'The file itself, or a ZIP of a bundle, with a download file name.',
  ],
  'GET /api/v1/artifacts/{artifactId}/preview-link': [
    'Artifacts',
    'Get a preview link',
    'A link, valid for an hour, under which a bundle’s files open in a sandboxed frame with their styles and pictures.',
  ],
  'GET /api/v1/previews/{*}': [
    'Artifacts',
    'Preview a bundle file',
    'One file through a preview link; the link is the credential. Served with a sandbox policy: no script runs.',
  ],
  'GET /api/v1/artifacts/{artifactId}/raw': ['Artifacts', 'Read as plain text', 'The content as text/plain.'],
  'GET /api/v1/artifacts/{artifactId}/file/{*}': [
    'Artifacts',
    'Read one file of a bundle',
    'One file of a multi-file artifact by its path, with its own content type.',
  ],
  'POST /api/v1/artifacts/{artifactId}/publish': [
    'Artifacts',
    'Publish an artifact',
    'Copies its files to a public address anyone can open. Owner or admin only.',
  ],
  'POST /api/v1/artifacts/{artifactId}/unpublish': [
    'Artifacts',
    'Unpublish an artifact',
    'Takes the public copy down. Owner or admin only.',
  ],
  'POST /api/v1/artifacts/{artifactId}/install': [
    'Artifacts',
    'Install a skill artifact',
    'Makes a skill a run wrote runnable in this workspace under its slug.',
  ],
  'POST /api/v1/files': [
    'Files',
    'Upload an input file',
    'Stores a file (multipart, one file) for runs to read in their uploads folder. A file no run was given expires after 7 days; one a run was given, 30 days after the last such run (ATTACHED_FILE_RETENTION_DAYS). A workspace keeps at most 1,000 files (WORKSPACE_FILE_LIMIT; past it 409) and 1 GiB of files and installed skill folders together (WORKSPACE_STORAGE_LIMIT_BYTES; past it 413): delete files to make room.',
  ],
  'GET /api/v1/files': ['Files', 'List uploaded files', 'The workspace’s uploads, newest first.'],
  'GET /api/v1/files/{fileId}': ['Files', 'Read a file’s details', 'Its name, size, type and expiry.'],
  'DELETE /api/v1/files/{fileId}': ['Files', 'Delete an uploaded file', 'Runs already given it keep their copy.'],
  'GET /api/v1/files/{fileId}/content': ['Files', 'Download an uploaded file', 'The bytes as uploaded.'],
  'GET /api/v1/agents': ['Assistant', 'List agents', 'The assistants a workspace can talk to in threads.'],
  'GET /api/v1/agents/{agentId}/threads': [
    'Assistant',
    'List conversations',
    'The workspace’s threads with an agent, the most recently active first, each titled by its first message.',
  ],
  'POST /api/v1/agents/{agentId}/subscribe-thread': [
    'Assistant',
    'Follow a thread',
    'A long-lived stream of the agent’s replies, approval requests and notifications for one thread; reconnect when it closes.',
  ],
  'POST /api/v1/agents/{agentId}/send-message': [
    'Assistant',
    'Send a message to a thread',
    'Posts a message; the reply arrives on the thread’s stream.',
  ],
  'POST /api/v1/chat/{agentId}': [
    'Assistant',
    'Chat without a stream',
    'Sends a message and answers with the agent’s reply to it.',
  ],
  'POST /api/v1/agents/{agentId}/threads/{threadId}/approvals/{approvalId}': [
    'Assistant',
    'Answer an approval request',
    'Allows or refuses a tool call the agent asked to make.',
  ],
  'GET /api/v1/billing/balance': [
    'Billing',
    'Read your balance',
    'Credits (Ds) held, spent so far, and whether a run can start now: of the skill named by `skill`, counting its price and its first model call, or without it of a priced agent skill.',
  ],
  'GET /api/v1/billing/packs': [
    'Billing',
    'List credit packs',
    'The packs at the caller’s prices; a Based subscription’s discount is already taken off.',
  ],
  'POST /api/v1/billing/purchase': [
    'Billing',
    'Start buying a pack',
    'Answers the hosted checkout’s address. The credits are granted when the payment provider confirms the payment, even if the person never comes back.',
  ],
  'POST /api/v1/billing/subscribe': [
    'Billing',
    'Start a Based subscription',
    'Answers the hosted checkout’s address for the monthly plan; each paid month grants its credits.',
  ],
  'GET /api/v1/billing/transactions': ['Billing', 'List transactions', 'The 50 newest ledger entries, newest first.'],
  'GET /api/v1/billing/subscription/tier': [
    'Billing',
    'Read your plan',
    'The plan in force now, what it gives, and when a subscription runs until.',
  ],
  'GET /api/v1/billing/subscription/info': ['Billing', 'Compare plans', 'What each plan costs and gives.'],
  'GET /api/v1/billing/subscription': [
    'Billing',
    'Read your subscription',
    'Whether a Based subscription is on, whether it renews, and until when it is paid.',
  ],
  'POST /api/v1/billing/subscription/cancel': [
    'Billing',
    'Cancel your subscription',
    'Stops the Based subscription from renewing. What was paid runs to its end: Based and its credits stay until then. 409 when nothing renews.',
  ],
  'GET /api/v1/billing/publishable-key': [
    'Billing',
    'Get the payment form key',
    'The payment provider’s public key for client-side payment forms.',
  ],
  'GET /api/v1/byok': ['Billing', 'Read your own model key', 'Whether a key is stored, a preview of it, and its provider.'],
  'PUT /api/v1/byok': [
    'Billing',
    'Store your own model key',
    'An sk-ant- key goes to Anthropic, any other sk- key to OpenAI. Model calls then cost 0 Ds; a skill’s own price is still paid.',
  ],
  'DELETE /api/v1/byok': ['Billing', 'Remove your own model key', 'Model calls are paid in Ds again.'],
  'POST /api/v1/webhooks': [
    'Webhooks',
    'Add a webhook endpoint',
    'Subscribes a public https address to run and artifact events. The signing secret is in this answer only.',
  ],
  'GET /api/v1/webhooks': ['Webhooks', 'List webhook endpoints', 'The workspace’s endpoints and the events each receives.'],
  'GET /api/v1/webhooks/{id}': ['Webhooks', 'Read a webhook endpoint', 'Its address, events, and whether it is paused.'],
  'PATCH /api/v1/webhooks/{id}': [
    'Webhooks',
    'Change a webhook endpoint',
    'Changes its address, events or description, or pauses it.',
  ],
  'DELETE /api/v1/webhooks/{id}': ['Webhooks', 'Remove a webhook endpoint', 'Nothing more is sent to it.'],
  'POST /api/v1/webhooks/{id}/secret': [
    'Webhooks',
    'Roll the signing secret',
    'Issues a new secret; the old one keeps signing for a day so receivers can switch.',
  ],
  'POST /api/v1/webhooks/{id}/test': ['Webhooks', 'Send a test event', 'Delivers a ping now, to check the receiver.'],
  'GET /api/v1/webhooks/{id}/deliveries': [
    'Webhooks',
    'List deliveries',
    'Recent deliveries to the endpoint with their outcome.',
  ],
  'GET /api/v1/webhooks/{id}/deliveries/{deliveryId}': [
    'Webhooks',
    'Read a delivery',
    'The request sent, each attempt and the receiver’s answers.',
  ],
  'POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver': [
    'Webhooks',
    'Send a delivery again',
    'Queues the same event again, as a new delivery.',
  ],
  'GET /api/v1/events/subscribe-url': [
    'Runs',
    'Get a control-plane URL',
    'A signed WebSocket address for the live control channel of the calling credential; fetch a new one for every reconnect.',
  ],
};

/** A Fastify route path in the document's form: `:id` as `{id}`, a wildcard as `{*}`. */
export const documentPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}');

export function operationDoc(method: string, url: string): OperationDoc | undefined {
  const entry = DOCS[`${method} ${documentPath(url)}`];
  return entry && { tag: entry[0], summary: entry[1], description: entry[2] };
}

/** Every key of the table, for the test that matches them against the routes. */
export const documentedOperations = (): string[] => Object.keys(DOCS);
