import type Database from "better-sqlite3";

/**
 * A repository's statements, prepared on first use and then reused: preparing needs the tables,
 * which exist only after migrate(), and a statement is cheaper run again than prepared again.
 * `sql()` returns them.
 */
export function preparedOnFirstUse<S>(db: Database.Database, prepare: (db: Database.Database) => S): () => S {
  let statements: S | undefined;
  return () => {
    statements ??= prepare(db);
    return statements;
  };
}

/** Statements whose text depends on the call (a patch's columns, a number of rows), prepared once per text. */
export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  get(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }
}
