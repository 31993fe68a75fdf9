import type { RefObject } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

/** Within this many pixels of the end, a box counts as followed and keeps up with what is added. */
const FOLLOW_SLACK_PX = 40;

/**
 * Keeps a scrolling box at its end as `size` grows, while the person is there; once they
 * scroll up to read, it stays where they are.
 */
export function useFollowingScroll<T extends HTMLElement>(size: unknown): RefObject<T | null> {
  const box = useRef<T>(null);
  // The height before the newest content: where its end was is where a follower's view was.
  const heightBefore = useRef(0);
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const wasAtEnd = heightBefore.current - element.scrollTop - element.clientHeight < FOLLOW_SLACK_PX;
    if (wasAtEnd) element.scrollTop = element.scrollHeight;
    heightBefore.current = element.scrollHeight;
  }, [size]);
  return box;
}
