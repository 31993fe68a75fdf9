import { type Dirent, type FSWatcher, lstatSync, readdirSync, type Stats, watch } from 'node:fs';
import path from 'node:path';

/**
 * Watches a folder and every folder under it, one inotify watch per folder, and hands
 * `onChange` the path (relative to `root`) each event names, with what lstat found there
 * (nothing once it is gone). Node 20's recursive watch
 * re-reads the whole tree on every change: a run writing 3,000 small files blocked the
 * server's event loop for 14 s. Here an event costs one lstat, and a folder's entries are
 * read once, when its watch begins (for what was made in it before). At most `maxFolders`
 * folders are watched; the watchdog's ticks cover any beyond.
 */
export function watchFolderTree(
  root: string,
  maxFolders: number,
  onChange: (relative: string, stats: Stats | undefined) => void,
): () => void {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;

  const changed = (dir: string, name: string): void => {
    if (closed) return;
    const full = path.join(dir, name);
    let stats: Stats | undefined;
    try {
      stats = lstatSync(full);
    } catch {
      // removed or renamed away already
    }
    onChange(path.relative(root, full), stats);
    if (stats?.isDirectory()) add(full);
  };

  function add(dir: string): void {
    if (watchers.has(dir) || watchers.size >= maxFolders) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, name) => {
        if (name !== null) changed(dir, name);
      });
    } catch {
      return; // gone before its watch began
    }
    watcher.on('error', () => {
      watcher.close();
      watchers.delete(dir);
    });
    watchers.set(dir, watcher);
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      // removed while its watch began
    }
    for (const entry of entries) changed(dir, entry.name);
  }

  add(root);
  return () => {
    closed = true;
    for (const watcher of watchers.values()) watcher.close();
    watchers.clear();
  };
}
