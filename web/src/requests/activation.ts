import { SkilletError } from '../../../src/sdk/errors';
import type { ActivationDetails } from '../../../src/sdk/types';
import { get, post } from '../api';

/** An unknown code is an answer to show, not a failure: it comes back as null. */
export async function lookUpActivation(code: string): Promise<ActivationDetails | null> {
  try {
    return await get<ActivationDetails>(`/api/v1/activate/lookup?code=${encodeURIComponent(code)}`);
  } catch (error) {
    if (error instanceof SkilletError && error.status === 404) return null;
    throw error;
  }
}

/** Approves the device into `workspaceId`: the header names where its key goes (else the personal workspace). */
export const approveActivation = (code: string, workspaceId: string) =>
  post('/api/v1/activate/confirm', { code }, { 'x-workspace-id': workspaceId });

export const denyActivation = (code: string) => post('/api/v1/activate/deny', { code });
