import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Me } from '../../src/sdk/types';
import { useLive } from './live';
import { Link, match, navigate, useRoute } from './router';
import { AccountScreen } from './screens/account/account';
import { InvitationScreen } from './screens/account/invitation';
import { ResetPasswordScreen } from './screens/account/reset-password';
import { SignInScreen } from './screens/account/sign-in';
import { ActivateScreen } from './screens/activate/activate';
import { ArtifactScreen } from './screens/artifacts/artifact';
import { ArtifactsScreen } from './screens/artifacts/artifacts';
import { BillingScreen } from './screens/billing/billing';
import { AssistantScreen } from './screens/chat/assistant';
import { ChatScreen } from './screens/chat/chat';
import { ExecutionsScreen } from './screens/executions/executions';
import { KeysScreen } from './screens/keys/keys';
import { RunScreen } from './screens/run/run';
import { SkillScreen } from './screens/skills/skill';
import { SkillsScreen } from './screens/skills/skills';
import { WebhookDeliveriesScreen } from './screens/webhooks/webhook-deliveries';
import { WebhookDeliveryScreen } from './screens/webhooks/webhook-delivery';
import { WebhooksScreen } from './screens/webhooks/webhooks';
import { WorkspacesScreen } from './screens/workspaces/workspaces';
import { signOut, useMe } from './session';
import { WorkspaceSwitcher } from './workspace-switcher';

const NAV: { href: string; label: string }[] = [
  { href: '/skills', label: 'Skills' },
  { href: '/assistant', label: 'Assistant' },
  { href: '/runs', label: 'Runs' },
  { href: '/artifacts', label: 'Artifacts' },
  { href: '/keys', label: 'Keys' },
  { href: '/billing', label: 'Billing' },
  { href: '/workspaces', label: 'Workspaces' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/activate', label: 'Approve a device' },
  { href: '/account', label: 'Account' },
];

type Screen = {
  pattern: string;
  title: string;
  render: (params: Record<string, string>, query: URLSearchParams, me: Me) => ComponentChildren;
};

const SCREENS: Screen[] = [
  { pattern: '/skills', title: 'Skills', render: () => <SkillsScreen /> },
  { pattern: '/skills/:slug', title: 'Run a skill', render: (params) => <SkillScreen slug={params.slug as string} /> },
  {
    pattern: '/assistant',
    title: 'Assistant',
    render: (_params, _query, me) => <AssistantScreen workspaceId={me.workspace.id} />,
  },
  {
    pattern: '/assistant/:threadId',
    title: 'Conversation',
    render: (params, _query, me) => <ChatScreen workspaceId={me.workspace.id} threadId={params.threadId as string} />,
  },
  { pattern: '/runs', title: 'Runs', render: (_params, query) => <ExecutionsScreen query={query} /> },
  { pattern: '/runs/:id', title: 'Run', render: (params) => <RunScreen id={params.id as string} /> },
  { pattern: '/artifacts', title: 'Artifacts', render: () => <ArtifactsScreen /> },
  { pattern: '/artifacts/:id', title: 'Artifact', render: (params) => <ArtifactScreen id={params.id as string} /> },
  { pattern: '/keys', title: 'API keys', render: () => <KeysScreen /> },
  { pattern: '/billing', title: 'Billing', render: (_params, query) => <BillingScreen query={query} /> },
  { pattern: '/workspaces', title: 'Workspaces', render: () => <WorkspacesScreen /> },
  { pattern: '/webhooks', title: 'Webhooks', render: () => <WebhooksScreen /> },
  {
    pattern: '/webhooks/:id',
    title: 'Webhook deliveries',
    render: (params) => <WebhookDeliveriesScreen id={params.id as string} />,
  },
  {
    pattern: '/webhooks/:id/deliveries/:deliveryId',
    title: 'Webhook delivery',
    render: (params) => <WebhookDeliveryScreen endpointId={params.id as string} deliveryId={params.deliveryId as string} />,
  },
  { pattern: '/account', title: 'Your account', render: () => <AccountScreen /> },
  {
    pattern: '/activate',
    title: 'Approve a device',
    render: (_params, query) => <ActivateScreen code={query.get('code') ?? ''} />,
  },
];

function LiveIndicator() {
  const { status } = useLive();
  const text = status === 'live' ? 'Live' : status === 'connecting' ? 'Connecting…' : 'Offline';
  return (
    <span class={`live live-${status}`} role="status" aria-live="polite" title="Updates from the server">
      <span class="live-dot" aria-hidden="true" />
      {text}
    </span>
  );
}

function Shell({ title, children }: { title: string; children: ComponentChildren }) {
  const me = useMe();
  const { path } = useRoute();
  const heading = useRef<HTMLHeadingElement>(null);
  // On a phone the sections fold behind a Menu button; going anywhere folds them again.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);
  useEffect(() => {
    document.title = `${title} · Skillet`;
  }, [title]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/skills" class="brand">
          Skillet
        </Link>
        <LiveIndicator />
        <button
          type="button"
          class="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="sections"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        {me && (
          <span class="who">
            <WorkspaceSwitcher me={me} />
            <span class="email">{me.user.email}</span>
            <button type="button" onClick={() => signOut().then(() => navigate('/'))}>
              Sign out
            </button>
          </span>
        )}
      </header>
      <nav id="sections" class={menuOpen ? 'tabs open' : 'tabs'} aria-label="Sections">
        {NAV.map((item) => (
          <Link
            key={item.href}
            href={item.href}
            aria-current={path.startsWith(item.href) ? 'page' : undefined}
            // The section already shown changes no path, and its link folds the menu all the same.
            onNavigate={() => setMenuOpen(false)}
          >
            {item.label}
          </Link>
        ))}
        {/* The guide is the server's own pages, outside the app: a plain link loads it. */}
        <a class="docs-link" href="/docs">
          Docs
        </a>
      </nav>
      <main id="main" tabIndex={-1}>
        <h1 ref={heading}>{title}</h1>
        {children}
      </main>
    </>
  );
}

export function App() {
  const me = useMe();
  const { path, query } = useRoute();
  // A reset link works whoever is signed in here, and without anyone.
  if (path === '/reset-password') return <ResetPasswordScreen />;
  // An invitation link shows what it offers to anyone, and lets the invitee sign in or up to accept it.
  if (path === '/invitation') return <InvitationScreen />;
  if (me === undefined) {
    return (
      <main id="main" class="loading" aria-busy="true">
        <h1>Skillet</h1>
        <p>Loading…</p>
      </main>
    );
  }
  if (me === null) return <SignInScreen />;
  const route = path === '/' ? '/skills' : path;
  for (const screen of SCREENS) {
    const params = match(screen.pattern, route);
    if (params) return <Shell title={screen.title}>{screen.render(params, query, me)}</Shell>;
  }
  return (
    <Shell title="Not found">
      <p>
        There is no such page. <Link href="/skills">Go to the skills</Link>.
      </p>
    </Shell>
  );
}
