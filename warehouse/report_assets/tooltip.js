(function () {
  var tip = document.getElementById("tooltip");
  var marks = document.querySelectorAll("[data-tip]");
  function show(event) {
    tip.textContent = event.currentTarget.getAttribute("data-tip");
    tip.style.display = "block";
    move(event);
  }
  function move(event) {
    var x = event.clientX + 14, y = event.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth - 8) { x = event.clientX - tip.offsetWidth - 14; }
    if (y + tip.offsetHeight > window.innerHeight - 8) { y = event.clientY - tip.offsetHeight - 14; }
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }
  function hide() { tip.style.display = "none"; }
  for (var i = 0; i < marks.length; i++) {
    // The styled tooltip replaces the native one, which stays for readers without scripts.
    var native = marks[i].querySelector("title");
    if (native) { marks[i].removeChild(native); }
    marks[i].addEventListener("mouseenter", show);
    marks[i].addEventListener("mousemove", move);
    marks[i].addEventListener("mouseleave", hide);
  }
  document.body.setAttribute("data-ready", "1");
})();
