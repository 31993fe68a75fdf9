import { get } from '../api';

/** A freshly signed control-plane socket URL: the signature is checked only at the upgrade, so each opening asks anew. */
export const controlSocketUrl = async (): Promise<string> => (await get<{ url: string }>('/api/v1/events/subscribe-url')).url;
