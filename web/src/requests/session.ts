import type { Me } from '../../../src/sdk/types';
import { get, post } from '../api';

/**
 * Who the session cookie belongs to (null when nobody is signed in, which is an answer, not
 * an error), and whether the server mails reset links.
 */
export const currentSession = () => get<{ me: Me | null; mailsResetLinks: boolean }>('/api/v1/app/session');

export const mailResetLink = (email: string) => post<{ success: true }>('/api/v1/auth/password-reset/request', { email });

export const logIn = (email: string, password: string) => post('/api/v1/app/login', { email, password });

export const createAccount = (email: string, password: string) => post('/api/v1/app/signup', { email, password });

export const logOut = () => post('/api/v1/app/logout');
