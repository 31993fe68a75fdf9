import { SkilletError } from '../../../src/sdk/errors';
import { get, post } from '../api';

export type ActivationStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'consumed';

export interface ActivationDetails {
  user_code: string;
  client_label: string;
  client_ua: string;
  client_ip: string;
  status: ActivationStatus;
  expires_at: string;
}

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
