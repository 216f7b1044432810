// Live timeline: the server sends each new tick's rows (those that pass the page's filters), already rendered
// (and escaped) by the server.
(function () {
  var script = document.currentScript;
  var body = document.getElementById("ticks");
  var filters = script.dataset.filters ? "&" + script.dataset.filters : "";
  var source = new EventSource("/events?after=" + encodeURIComponent(script.dataset.after) + filters);
  source.addEventListener("tick", function (event) {
    body.insertAdjacentHTML("afterbegin", event.data);
    var empty = document.getElementById("empty");
    if (empty) { empty.remove(); }
  });
})();
