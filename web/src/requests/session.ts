import type { Me } from '../../../src/sdk/types';
import { get, post } from '../api';

/** Who the session cookie belongs to: null when nobody is signed in, which is an answer, not an error. */
export const currentSession = async (): Promise<Me | null> => (await get<{ me: Me | null }>('/api/v1/app/session')).me;

export const logIn = (email: string, password: string) => post('/api/v1/app/login', { email, password });

export const createAccount = (email: string, password: string) => post('/api/v1/app/signup', { email, password });

export const logOut = () => post('/api/v1/app/logout');
