/// The page at `/` and the login page: HTML, CSS and JS embedded in the binary, loaded from no
/// other host (the rig may be offline). The script is RemotePage+Script.swift.
enum RemotePage {
    /// Never cached (the policy and the security headers are on every response: `RemoteRouter.securityHeaders`).
    static let noStore = [("Cache-Control", "no-store")]

    static var page: HTTPResponse { html(pageHTML) }
    static var login: HTTPResponse { html(loginHTML) }
    static var script: HTTPResponse {
        .bytes(status: 200, contentType: "text/javascript; charset=utf-8", body: Array(scriptJS.utf8), headers: noStore)
    }
    static var style: HTTPResponse {
        .bytes(status: 200, contentType: "text/css; charset=utf-8", body: Array(styleCSS.utf8), headers: noStore)
    }

    private static func html(_ text: String) -> HTTPResponse {
        .bytes(status: 200, contentType: "text/html; charset=utf-8", body: Array(text.utf8), headers: noStore)
    }

    static let loginHTML = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Tripod: log in</title><link rel="stylesheet" href="/app.css"></head>
    <body class="login"><main>
    <h1>Tripod</h1>
    <form id="login" method="post" action="/login"><label for="token">Token (<code>tripod ctl remote token</code>)</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required>
    <button id="login-button" type="submit">Log in</button><p id="login-error" role="alert"></p></form>
    </main><script src="/app.js"></script></body></html>
    """

    static let pageHTML = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Tripod</title><link rel="stylesheet" href="/app.css"></head>
    <body class="remote">
    <header><h1>Tripod</h1><span id="connection">connecting…</span><button id="logout" type="button">Log out</button></header>
    <main>
    <section id="viewer">
      <div id="frame"><img id="preview" alt="live preview"><canvas id="overlay"></canvas></div>
      <div class="toggles">
        <label><input type="checkbox" id="zebra"> Zebra</label>
        <label><input type="checkbox" id="peaking"> Peaking</label>
        <label><input type="checkbox" id="histogram"> Histogram</label>
      </div>
      <canvas id="histogram-chart" width="256" height="64" hidden></canvas>
      <div class="buttons">
        <button id="capture" type="button">Capture</button>
        <button id="af" type="button">AF</button>
        <button id="record-start" type="button">Record</button>
        <button id="record-stop" type="button">Stop</button>
        <span id="presets"></span>
      </div>
      <p id="reply" role="status"></p>
    </section>
    <section id="status-panel"><h2>Status</h2><dl id="status"></dl></section>
    <section id="settings-panel"><h2>Settings</h2><form id="settings"></form></section>
    <section id="events-panel"><h2>Events</h2><ol id="events"></ol></section>
    <section id="captures-panel"><h2>Captures</h2><ul id="captures"></ul></section>
    <section id="formats-panel"><h2>Formats</h2><pre id="formats"></pre></section>
    </main><script src="/app.js"></script></body></html>
    """

    static let styleCSS = """
    :root { color-scheme: dark; --bg: #111; --panel: #1c1c1c; --line: #333; --text: #eee; --accent: #f5a623; }
    * { box-sizing: border-box; }
    body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.4 system-ui, sans-serif; }
    header { display: flex; gap: .75rem; align-items: center; padding: .5rem .75rem; border-bottom: 1px solid var(--line); }
    header h1 { font-size: 1.1rem; margin: 0; flex: 1; }
    main { display: grid; gap: .75rem; padding: .75rem; grid-template-columns: minmax(0, 1fr); }
    section { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .6rem; min-width: 0; }
    h2 { font-size: 1rem; margin: 0 0 .4rem; }
    #frame { position: relative; width: 100%; background: #000; }
    #preview { display: block; width: 100%; height: auto; min-height: 120px; }
    #overlay { position: absolute; inset: 0; width: 100%; height: 100%; pointer-events: none; }
    #histogram-chart { width: 100%; height: 64px; background: #000; margin-top: .4rem; }
    .toggles, .buttons { display: flex; flex-wrap: wrap; gap: .4rem; margin-top: .5rem; }
    button { background: #2a2a2a; color: var(--text); border: 1px solid #555; border-radius: 4px; padding: .45rem .8rem; font: inherit; min-height: 2.4rem; }
    button:active { background: var(--accent); color: #000; }
    #record-start { border-color: #c33; }
    dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .1rem .6rem; margin: 0; font-size: .9rem; }
    dt { color: #aaa; } dd { margin: 0; overflow-wrap: anywhere; }
    #settings { display: grid; gap: .35rem; }
    #settings label { display: grid; grid-template-columns: 9.5rem minmax(0, 1fr); gap: .4rem; align-items: center; font-size: .9rem; }
    #settings input, #settings select { width: 100%; background: #000; color: var(--text); border: 1px solid #555; border-radius: 3px; padding: .3rem; font: inherit; min-width: 0; }
    #settings .unit { color: #aaa; font-size: .8rem; grid-column: 2; }
    #events { margin: 0; padding-left: 1.2rem; max-height: 14rem; overflow: auto; font: .8rem/1.3 ui-monospace, monospace; }
    #captures { margin: 0; padding: 0; list-style: none; max-height: 24rem; overflow: auto; }
    #captures li { display: flex; gap: .5rem; align-items: center; padding: .2rem 0; border-bottom: 1px solid var(--line); font-size: .85rem; }
    #captures img { width: 64px; height: 40px; object-fit: cover; background: #000; }
    #captures a { color: var(--accent); overflow-wrap: anywhere; flex: 1; }
    pre { overflow: auto; font-size: .75rem; margin: 0; }
    #reply { min-height: 1.2em; font-size: .85rem; color: #aaa; overflow-wrap: anywhere; }
    body.login main { max-width: 24rem; margin: 3rem auto; display: block; }
    body.login input { width: 100%; padding: .5rem; margin: .4rem 0; font: inherit; }
    @media (min-width: 900px) {
      main { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); }
      #viewer { grid-row: span 2; }
      #formats-panel { grid-column: 1 / -1; }
    }
    """
}
