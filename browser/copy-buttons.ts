// Long values (hashes, keys, ids, commands) are shown whole, broken at any character, which makes
// them hard to select by hand on a phone. Each element the server marks `data-copy="<what it is>"`
// gets a Copy button after it, added here because without a script it could do nothing.

const RESET_MS = 2_000;

/** Adds a Copy button after every `[data-copy]` element under `root` that has none yet. */
export function addCopyButtons(root: ParentNode = document): void {
  for (const value of Array.from(root.querySelectorAll<HTMLElement>("[data-copy]"))) {
    if (value.nextElementSibling?.classList.contains("copy")) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    const word = document.createElement("span");
    word.textContent = "Copy";
    const what = document.createElement("span");
    what.className = "visually-hidden";
    what.textContent = ` ${value.dataset.copy}`;
    button.append(word, what);
    button.addEventListener("click", () => void copy(value, word));
    value.after(button);
  }
}

async function copy(value: HTMLElement, word: HTMLElement): Promise<void> {
  const text = value.textContent ?? "";
  try {
    await navigator.clipboard.writeText(text);
    show(word, "Copied", `${value.dataset.copy} copied`);
  } catch {
    // No clipboard API outside a secure context (plain http to another host than localhost), or
    // the browser refused: the value is selected instead, for the keyboard's or the menu's copy.
    getSelection()?.selectAllChildren(value);
    show(word, "Selected", `${value.dataset.copy} selected: copy it with your browser`);
  }
}

/** Says what happened on the button, and to screen readers through one polite live region. */
function show(word: HTMLElement, shown: string, spoken: string): void {
  word.textContent = shown;
  announcer().textContent = spoken;
  setTimeout(() => {
    word.textContent = "Copy";
  }, RESET_MS);
}

function announcer(): HTMLElement {
  let region = document.getElementById("copy-status");
  if (!region) {
    region = document.createElement("p");
    region.id = "copy-status";
    region.className = "visually-hidden";
    region.setAttribute("role", "status");
    // Inside main, so that everything on the page stays within a landmark.
    (document.querySelector("main") ?? document.body).append(region);
  }
  return region;
}
