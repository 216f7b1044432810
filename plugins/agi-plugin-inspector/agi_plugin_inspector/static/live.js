// Live timeline: the server sends each new tick's rows, already rendered (and escaped) by the server.
(function () {
  var script = document.currentScript;
  var body = document.getElementById("ticks");
  var source = new EventSource("/events?after=" + encodeURIComponent(script.dataset.after));
  source.addEventListener("tick", function (event) {
    body.insertAdjacentHTML("afterbegin", event.data);
    var empty = document.getElementById("empty");
    if (empty) { empty.remove(); }
  });
})();
