// The logo, and the plain shell served at GET / by a build that carries no
// built page (tools/web-page.mjs did not run: unit tests that boot the
// firmware). Neither carries device data.

export const SHELL_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Desk assistant</title>
<link rel="icon" href="/logo.svg">
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:1.5rem;max-width:40rem;color:#1d2430;background:#f6f7f9}
header{display:flex;align-items:center;gap:.75rem}
img{width:40px;height:40px}
main{margin-top:1rem;background:#fff;border-radius:12px;padding:1rem 1.25rem;box-shadow:0 1px 3px #0002}
</style>
</head>
<body>
<header><img src="/logo.svg" alt=""><h1>Desk assistant</h1></header>
<main id="app">
<p>This page talks to your device over your home network. Sign in with the link or QR code shown on the device's screen.</p>
<p>This firmware build carries no web page (it was built without tools/web-page.mjs).</p>
<noscript>This page needs JavaScript.</noscript>
</main>
</body>
</html>
`;

export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Desk assistant">
<circle cx="32" cy="32" r="28" fill="none" stroke="#3b6fd8" stroke-width="6"/>
<circle cx="32" cy="32" r="12" fill="#3b6fd8"/>
</svg>
`;
