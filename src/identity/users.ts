import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import { Conflict, InvalidInput, Unauthorized } from '../errors.js';
import { hashPassword, verifyPassword } from '../secrets.js';
import { issueAuthToken } from './auth-tokens.js';
import { countLoginFailure, requireLoginAllowed } from './login-limit.js';
import { findUserByEmail, findUserById, insertUserWithPersonalWorkspace, type UserRow } from './users.store.js';

export interface UserView {
  id: string;
  email: string;
  isAdmin: boolean;
  personalWorkspaceId: string;
  createdAt: string;
}

export interface SignedIn {
  token: string;
  user: UserView;
}

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const PASSWORD_MIN_LENGTH = 8;

function userView(row: UserRow): UserView {
  return {
    id: row.id,
    email: row.email,
    isAdmin: row.is_admin === 1,
    personalWorkspaceId: row.personal_workspace_id,
    createdAt: row.created_at,
  };
}

export function normalizeEmail(email: string): string {
  const normalized = email.trim().toLowerCase();
  if (!EMAIL_SHAPE.test(normalized)) throw new InvalidInput('email must be an email address');
  return normalized;
}

export interface NewAccount {
  email: string;
  password: string;
  isAdmin?: boolean;
}

export async function createUser(ctx: Pick<AppContext, 'db' | 'clock' | 'config'>, account: NewAccount): Promise<UserRow> {
  const email = normalizeEmail(account.email);
  if (account.password.length < PASSWORD_MIN_LENGTH) {
    throw new InvalidInput(`password must be at least ${PASSWORD_MIN_LENGTH} characters`);
  }
  const passwordHash = await hashPassword(account.password, { logN: ctx.config.passwordHashLogN });
  try {
    return await insertUserWithPersonalWorkspace(ctx.db, {
      id: randomUUID(),
      email,
      passwordHash,
      isAdmin: account.isAdmin ?? false,
      personalWorkspaceId: randomUUID(),
      createdAt: ctx.clock.now().toISOString(),
      signupCredits: ctx.config.billing.signupCredits,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new Conflict('An account with this email already exists');
    throw error;
  }
}

export async function signUp(ctx: Pick<AppContext, 'db' | 'clock' | 'config'>, account: NewAccount): Promise<SignedIn> {
  const user = await createUser(ctx, { email: account.email, password: account.password });
  const token = await issueAuthToken(ctx, user);
  return { token, user: userView(user) };
}

/** Verified against a throwaway hash when the email is unknown, so timing tells nothing. */
let decoyHash: Promise<string> | undefined;

/** What a password check needs: the accounts, and the per-account failure limit. */
type PasswordChecker = Pick<AppContext, 'db' | 'clock' | 'config' | 'rateLimits'>;

/** Every password check (API sign-in and the approval page alike) is held to the per-account failure limit. */
export async function checkPassword(ctx: PasswordChecker, email: string, password: string): Promise<UserRow> {
  const account = email.trim().toLowerCase();
  await requireLoginAllowed(ctx, account);
  const user = await findUserByEmail(ctx.db, account);
  decoyHash ??= hashPassword('decoy password', { logN: ctx.config.passwordHashLogN });
  const matches = await verifyPassword(password, user?.password_hash ?? (await decoyHash));
  if (!user || !matches) {
    await countLoginFailure(ctx, account);
    throw new Unauthorized('Invalid email or password');
  }
  return user;
}

export async function logIn(ctx: PasswordChecker, email: string, password: string): Promise<SignedIn> {
  const user = await checkPassword(ctx, email, password);
  const token = await issueAuthToken(ctx, user);
  return { token, user: userView(user) };
}

export function findUser(ctx: Pick<AppContext, 'db'>, userId: string): Promise<UserRow | undefined> {
  return findUserById(ctx.db, userId);
}
