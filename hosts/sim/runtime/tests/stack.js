// infinite recursion: exit 72
function f(n) { return f(n + 1) + 1; }
f(0);
