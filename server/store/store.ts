/**
 * The storage interface every domain uses. Two implementations pass one shared test suite:
 * SQLite (the embedded default, `sqlite/`) and PostgreSQL (scale-out). Each domain adds its
 * repository to this interface; methods are async so both engines fit behind it.
 */
export interface Store {
  readonly kind: "sqlite" | "postgres";
  /** Applies pending schema migrations; safe to call on every start. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
