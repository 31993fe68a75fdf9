import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { SkilletError } from '../../src/sdk/errors';
import { messageOf } from './api';
import { useLive } from './live';
import { reusingFresh } from './shared-reads';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads what `fetcher` returns, again whenever `deps` change or the control plane says the
 * workspace's data changed (only the collections in `watch`, when given). The last answer
 * stays on screen while a reload is under way. A first look (and a change of `deps`) may
 * take an answer another screen got moments ago; a reload, signalled or asked for, asks the
 * server. Refused for the rate limit, it tries again once the server's wait is over, and a
 * refresh of something already shown says nothing: the person did not ask for it.
 */
export function useLoad<T>(fetcher: () => Promise<T>, deps: unknown[], watch?: readonly string[]): Loaded<T> {
  const { version } = useLive(watch);
  const [state, setState] = useState<{ data: T | undefined; error: string | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [manual, setManual] = useState(0);
  const [waited, setWaited] = useState(0);
  const refreshes = useRef({ version, manual, waited });
  useEffect(() => {
    let current = true;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const last = refreshes.current;
    const refresh = last.version !== version || last.manual !== manual || last.waited !== waited;
    refreshes.current = { version, manual, waited };
    setState((previous) => ({ ...previous, loading: true }));
    (refresh ? fetcher() : reusingFresh(fetcher)).then(
      (data) => current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => {
        if (!current) return;
        const limited = error instanceof SkilletError && error.code === 'RATE_LIMITED';
        if (limited) retry = setTimeout(() => setWaited((count) => count + 1), (error.retryAfterSeconds ?? 5) * 1000);
        setState((previous) => ({
          ...previous,
          error: limited && previous.data !== undefined ? previous.error : messageOf(error),
          loading: false,
        }));
      },
    );
    return () => {
      current = false;
      clearTimeout(retry);
    };
  }, [...deps, version, manual, waited]);
  const reload = useCallback(() => setManual((count) => count + 1), []);
  return { ...state, reload };
}
