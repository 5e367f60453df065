// A rules page (/rules/<game>): a link to a folded section, or to a ruling inside one,
// opens the fold (Chromium opens a fold only for a target inside its hidden part).

function openTarget() {
  const id = decodeURIComponent(window.location.hash.slice(1));
  const target = id && document.getElementById(id);
  const fold = target && target.closest("details");
  if (fold && !fold.open) {
    fold.open = true;
    target.scrollIntoView();
  }
}

window.addEventListener("hashchange", openTarget);
openTarget();
