/**
 * Takes the first file dropped on `zone` (which also holds a labelled file input, the keyboard's
 * way in) and hands it to `take`; the zone is marked while a file is dragged over it.
 */
export function acceptDrops(zone: HTMLElement, take: (file: File) => void): void {
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("dragging");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("dragging");
    const file = event.dataTransfer?.files[0];
    if (file) take(file);
  });
}
