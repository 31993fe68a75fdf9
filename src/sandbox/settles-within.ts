/**
 * Whether `promise` resolves within `ms` (it is left running either way; a rejection within
 * `ms` rejects this too). The timer is cleared as soon as it resolves, so a shutdown that
 * waited this way does not keep the process alive for the rest of `ms`.
 */
export async function settlesWithin(promise: Promise<unknown> | undefined, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([Promise.resolve(promise).then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
