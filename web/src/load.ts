import { useCallback, useEffect, useState } from 'preact/hooks';
import { messageOf } from './api';
import { useLive } from './live';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads what `fetcher` returns, again whenever `deps` change or the control plane says the
 * workspace's data changed (only the collections in `watch`, when given). The last answer
 * stays on screen while a reload is under way.
 */
export function useLoad<T>(fetcher: () => Promise<T>, deps: unknown[], watch?: readonly string[]): Loaded<T> {
  const { version } = useLive(watch);
  const [state, setState] = useState<{ data: T | undefined; error: string | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [manual, setManual] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    fetcher().then(
      (data) => current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => current && setState((previous) => ({ ...previous, error: messageOf(error), loading: false })),
    );
    return () => {
      current = false;
    };
  }, [...deps, version, manual]);
  const reload = useCallback(() => setManual((count) => count + 1), []);
  return { ...state, reload };
}
