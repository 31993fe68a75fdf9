import type { Dialect } from './database.js';

/** The few column types that differ between the two engines. */
export interface ColumnTypes {
  timestamp: 'timestamptz' | 'text';
}

export function columnTypes(dialect: Dialect): ColumnTypes {
  return { timestamp: dialect === 'postgres' ? 'timestamptz' : 'text' };
}
