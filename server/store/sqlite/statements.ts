import type Database from "better-sqlite3";

/**
 * A getter of a repository's statements, prepared on its first call and then reused: preparing
 * needs the tables, which exist only after migrate(), and a statement is cheaper run again than
 * prepared again.
 */
export function preparedOnFirstUse<S>(db: Database.Database, prepare: (db: Database.Database) => S): () => S {
  let statements: S | undefined;
  return () => {
    statements ??= prepare(db);
    return statements;
  };
}

/**
 * Statements whose text depends on the call (a patch's columns, a number of rows), each prepared
 * the first time its key is asked for.
 */
export class StatementCache<K> {
  private readonly statements = new Map<K, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly textOf: (key: K) => string,
  ) {}

  get(key: K): Database.Statement {
    let statement = this.statements.get(key);
    if (!statement) {
      statement = this.db.prepare(this.textOf(key));
      this.statements.set(key, statement);
    }
    return statement;
  }
}
