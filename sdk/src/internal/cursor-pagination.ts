/** A page body of a cursor-paginated list (`StampSearchPage`): the next page starts at `next_cursor`. */
export interface CursorPageBody<Item> {
  items: Item[];
  /** The cursor of the next page; null on the last page. */
  next_cursor: string | null;
}

/** Fetches the page starting at `cursor` (the first page without one). */
export type CursorPageFetcher<Body> = (cursor: string | undefined) => Promise<Body>;

/**
 * One page of a cursor-paginated list: the page body's fields as they came, plus what it takes to
 * go on (`hasNextPage`, `nextPage`, `for await` over every item from here to the end).
 */
export type CursorPage<Item, Body extends CursorPageBody<Item>> = Body & CursorPaging<Item, Body>;

interface CursorPaging<Item, Body extends CursorPageBody<Item>> extends AsyncIterable<Item> {
  /** Whether another page follows (the server gave a `next_cursor`). */
  hasNextPage(): boolean;
  /** The page after this one, with the same query and page size. */
  nextPage(): Promise<CursorPage<Item, Body>>;
}

function cursorPage<Item, Body extends CursorPageBody<Item>>(
  body: Body,
  fetchPage: CursorPageFetcher<Body>,
): CursorPage<Item, Body> {
  const paging: CursorPaging<Item, Body> = {
    hasNextPage: () => body.next_cursor !== null,
    nextPage: async () => cursorPage(await fetchPage(body.next_cursor ?? undefined), fetchPage),
    async *[Symbol.asyncIterator]() {
      let page: CursorPage<Item, Body> = cursorPage(body, fetchPage);
      yield* page.items;
      while (page.hasNextPage()) {
        page = await page.nextPage();
        yield* page.items;
      }
    },
  };
  return Object.assign(Object.create(paging) as CursorPaging<Item, Body>, body);
}

/**
 * What a cursor-paginated method returns: await it for the first page, or iterate it with
 * `for await` for every item of every page. The first page is requested on first use, once.
 */
export class CursorPagePromise<Item, Body extends CursorPageBody<Item>>
  implements PromiseLike<CursorPage<Item, Body>>, AsyncIterable<Item>
{
  private first: Promise<CursorPage<Item, Body>> | undefined;

  constructor(
    private readonly fetchPage: CursorPageFetcher<Body>,
    private readonly startCursor?: string,
  ) {}

  private page(): Promise<CursorPage<Item, Body>> {
    this.first ??= this.fetchPage(this.startCursor).then((body) => cursorPage(body, this.fetchPage));
    return this.first;
  }

  // biome-ignore lint/suspicious/noThenProperty: a PromiseLike is what makes `await client.stamps.search()` work.
  then<A = CursorPage<Item, Body>, B = never>(
    onFulfilled?: ((page: CursorPage<Item, Body>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.page().then(onFulfilled, onRejected);
  }

  /** Like `Promise.prototype.catch` on the first page. */
  catch<B = never>(
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<CursorPage<Item, Body> | B> {
    return this.page().catch(onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    yield* await this.page();
  }
}
