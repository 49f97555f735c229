/** A page body of an offset-paginated list (`VaultList`, `ExplorerVaultList`). */
export interface OffsetPageBody<Item> {
  items: Item[];
  total: number;
  limit: number;
  offset: number;
}

/** Fetches the page starting at `offset`. */
export type PageFetcher<Item> = (offset: number) => Promise<OffsetPageBody<Item>>;

/** One page of a list, which knows how to fetch the next one. */
export class OffsetPage<Item> implements OffsetPageBody<Item>, AsyncIterable<Item> {
  readonly items: Item[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;

  constructor(
    body: OffsetPageBody<Item>,
    private readonly fetchPage: PageFetcher<Item>,
  ) {
    this.items = body.items;
    this.total = body.total;
    this.limit = body.limit;
    this.offset = body.offset;
  }

  /** Whether items remain after this page. An empty page ends the list even if `total` says more. */
  hasNextPage(): boolean {
    return this.items.length > 0 && this.offset + this.items.length < this.total;
  }

  /** The page after this one, with the same filter and page size. */
  async nextPage(): Promise<OffsetPage<Item>> {
    const body = await this.fetchPage(this.offset + this.items.length);
    return new OffsetPage(body, this.fetchPage);
  }

  /** Every item from this page to the end of the list, fetching pages as needed. */
  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    let page: OffsetPage<Item> = this;
    yield* page.items;
    while (page.hasNextPage()) {
      page = await page.nextPage();
      yield* page.items;
    }
  }
}

/**
 * What a list method returns: await it for the first page, or iterate it with `for await` for
 * every item of every page. The first page is requested on first use, once.
 */
export class PagePromise<Item> implements PromiseLike<OffsetPage<Item>>, AsyncIterable<Item> {
  private first: Promise<OffsetPage<Item>> | undefined;

  constructor(
    private readonly fetchPage: PageFetcher<Item>,
    private readonly startOffset = 0,
  ) {}

  private page(): Promise<OffsetPage<Item>> {
    this.first ??= this.fetchPage(this.startOffset).then((body) => new OffsetPage(body, this.fetchPage));
    return this.first;
  }

  // biome-ignore lint/suspicious/noThenProperty: a PromiseLike is what makes `await client.vault.list()` work.
  then<A = OffsetPage<Item>, B = never>(
    onFulfilled?: ((page: OffsetPage<Item>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.page().then(onFulfilled, onRejected);
  }

  /** Like `Promise.prototype.catch` on the first page. */
  catch<B = never>(
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<OffsetPage<Item> | B> {
    return this.page().catch(onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    yield* await this.page();
  }
}
