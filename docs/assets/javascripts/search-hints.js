// When the site's search finds nothing, offer the ways in that work for any code: the
// scenarios index, the programs by library (most readers hit the error inside one) and the
// diagnose command. Material writes its result count into
// .md-search-result__meta; the hint sits next to it and shows only with "no matching".
(function () {
  var meta = document.querySelector(".md-search-result__meta");
  var config = document.getElementById("__config");
  if (!meta || !config) return;
  var base = new URL(JSON.parse(config.textContent).base, location.href);
  var hint = document.createElement("p");
  hint.className = "bt-search-hint";
  hint.hidden = true;
  [["scenarios/", "Find your case among the scenarios"],
   ["libraries/", "or by the library you use"],
   ["diagnose/", "or run the diagnose command on your script"]].forEach(function (link, i) {
    var a = document.createElement("a");
    a.href = new URL(link[0], base).href;
    a.textContent = link[1];
    if (i) hint.append(", ");
    hint.append(a);
  });
  hint.append(".");
  meta.after(hint);
  new MutationObserver(function () {
    hint.hidden = !/no matching/i.test(meta.textContent);
  }).observe(meta, { childList: true, characterData: true, subtree: true });
})();
