import { activationReference } from './activation/activation.reference.js';
import { artifactsReference } from './artifacts/artifacts.reference.js';
import { billingReference } from './billing/billing.reference.js';
import { agentConnectReference } from './consent/consent.reference.js';
import { filesReference } from './files/files.reference.js';
import { referenceBook } from './http/operation-reference.js';
import { identityReference } from './identity/identity.reference.js';
import { workspacesReference } from './identity/workspaces.reference.js';
import { marketplaceReference } from './marketplace/marketplace.reference.js';
import { connectedAppsReference } from './oauth/oauth.reference.js';
import { runsReference } from './runs/runs.reference.js';
import { skillsReference } from './skills/skills.reference.js';
import { threadsReference } from './threads/threads.reference.js';
import { webhooksReference } from './webhooks/webhooks.reference.js';

/** The API reference of every feature, in the order the document groups them. */
export const API_REFERENCE = referenceBook([
  identityReference,
  workspacesReference,
  connectedAppsReference,
  activationReference,
  agentConnectReference,
  runsReference,
  skillsReference,
  marketplaceReference,
  artifactsReference,
  filesReference,
  threadsReference,
  billingReference,
  webhooksReference,
]);
