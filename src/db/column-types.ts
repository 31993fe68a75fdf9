import type { Dialect } from './database.js';

/** The few column types that differ between the two engines. */
export interface ColumnTypes {
  timestamp: 'timestamptz' | 'text';
  /** An integer key the database numbers itself. */
  serial: 'serial' | 'integer';
}

export function columnTypes(dialect: Dialect): ColumnTypes {
  return dialect === 'postgres' ? { timestamp: 'timestamptz', serial: 'serial' } : { timestamp: 'text', serial: 'integer' };
}
