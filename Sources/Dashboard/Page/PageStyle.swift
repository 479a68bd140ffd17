extension DashboardPage {
    /// The page's stylesheet: a full-height map with a member list beside it (wide screens) or
    /// below it (phones), touch-sized controls, and one look per member status.
    static let style = #"""
    :root {
      --bg: #f4f6f8; --panel: #ffffff; --ink: #1d2733; --muted: #5f6b7a; --line: #dfe4ea;
      --map: #e9edf1; --grid: #d5dce4; --grid-major: #c3ccd6; --accent: #2563eb;
      --online: #16a34a; --stale: #d97706; --offline: #8a94a3; --unknown: #b4bcc7;
      font: 15px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
      color: var(--ink); background: var(--bg);
    }
    * { box-sizing: border-box; }
    [hidden] { display: none !important; }
    html, body { margin: 0; height: 100%; }
    body { display: flex; flex-direction: column; min-height: 100%; }
    header {
      display: flex; align-items: center; gap: 10px; flex-wrap: wrap;
      padding: 8px 12px; background: var(--panel); border-bottom: 1px solid var(--line);
    }
    header h1 { font-size: 17px; margin: 0; font-weight: 650; letter-spacing: .01em; }
    header h1 .dot { color: var(--accent); }
    select#circle {
      font: inherit; min-height: 40px; padding: 6px 10px; border-radius: 10px;
      border: 1px solid var(--line); background: var(--bg); color: var(--ink); max-width: 60vw;
    }
    .pill {
      margin-left: auto; font-size: 12px; padding: 4px 10px; border-radius: 999px;
      background: #fdecec; color: #b42318; white-space: nowrap;
    }
    .pill.open { background: #e7f6ec; color: #146c2e; }
    main { flex: 1; display: flex; min-height: 0; }
    #mapwrap { position: relative; flex: 1; min-width: 0; background: var(--map); overflow: hidden; }
    svg#map { position: absolute; inset: 0; width: 100%; height: 100%; touch-action: none; cursor: grab; display: block; }
    svg#map.dragging { cursor: grabbing; }
    .grid line { stroke: var(--grid); stroke-width: 1; }
    .grid line.major { stroke: var(--grid-major); }
    .trail { fill: none; stroke-width: 3; stroke-linecap: round; stroke-linejoin: round; opacity: .55; }
    .trail-dot { opacity: .6; }
    .acc { fill-opacity: .10; stroke-opacity: .35; stroke-width: 1; }
    .extrapolation { stroke-width: 2; stroke-dasharray: 3 4; opacity: .7; fill: none; }
    .member .body { stroke: #fff; stroke-width: 3; }
    .member .ring { fill: none; stroke-width: 3; }
    .member .heading { stroke: #fff; stroke-width: 1.5; }
    .member .label-bg { fill: rgba(255,255,255,.92); stroke: rgba(0,0,0,.12); }
    .member .name { font-weight: 650; font-size: 13px; fill: var(--ink); }
    .member .age { font-size: 11px; fill: var(--muted); }
    .member .tid { font-size: 11px; font-weight: 700; fill: #fff; text-anchor: middle; dominant-baseline: central; pointer-events: none; }
    .member.online .ring { stroke: var(--online); }
    .member.stale .body { fill-opacity: .55; }
    .member.stale .ring { stroke: var(--stale); stroke-dasharray: 4 3; }
    .member.offline .body { fill: var(--offline) !important; }
    .member.offline .ring { stroke: var(--offline); stroke-dasharray: 2 3; }
    .member.offline .name, .member.offline .age { fill: var(--offline); }
    .controls { position: absolute; right: 10px; top: 10px; display: flex; flex-direction: column; gap: 6px; }
    .controls button {
      width: 44px; height: 44px; border-radius: 12px; border: 1px solid var(--line); background: var(--panel);
      font: 600 20px/1 system-ui, sans-serif; color: var(--ink); box-shadow: 0 1px 3px rgba(0,0,0,.12);
    }
    .controls button#fit { font-size: 12px; }
    .controls button.active { color: var(--accent); border-color: var(--accent); }
    .scalebar {
      position: absolute; left: 10px; bottom: 10px; padding: 3px 6px; font-size: 12px;
      background: rgba(255,255,255,.85); border-radius: 6px; color: var(--ink);
    }
    .scalebar .bar { height: 6px; border: 2px solid var(--ink); border-top: none; margin-top: 2px; }
    .attribution {
      position: absolute; right: 0; bottom: 0; font-size: 11px; padding: 2px 6px;
      background: rgba(255,255,255,.8); color: var(--muted); max-width: 70%;
    }
    .empty {
      position: absolute; inset: 0; display: flex; align-items: center; justify-content: center;
      color: var(--muted); text-align: center; padding: 24px; pointer-events: none;
    }
    aside {
      width: 330px; background: var(--panel); border-left: 1px solid var(--line);
      overflow-y: auto; -webkit-overflow-scrolling: touch;
    }
    .summary { display: flex; gap: 6px; flex-wrap: wrap; padding: 10px 12px; border-bottom: 1px solid var(--line); font-size: 12px; }
    .badge { display: inline-flex; align-items: center; gap: 5px; padding: 2px 8px; border-radius: 999px; background: var(--bg); color: var(--muted); }
    .badge::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: currentColor; }
    .badge.online { color: var(--online); } .badge.stale { color: var(--stale); }
    .badge.offline { color: var(--offline); } .badge.unknown { color: var(--unknown); }
    ul#members { list-style: none; margin: 0; padding: 0; }
    ul#members li {
      display: grid; grid-template-columns: 34px 1fr auto; gap: 2px 10px; align-items: center;
      padding: 10px 12px; border-bottom: 1px solid var(--line); min-height: 56px; cursor: pointer;
    }
    ul#members li:active { background: var(--bg); }
    .swatch {
      grid-row: span 2; width: 32px; height: 32px; border-radius: 50%; color: #fff; display: flex;
      align-items: center; justify-content: center; font-size: 12px; font-weight: 700; border: 3px solid transparent;
    }
    li.online .swatch { border-color: var(--online); }
    li.stale .swatch { border-color: var(--stale); border-style: dashed; opacity: .75; }
    li.offline .swatch { background: var(--offline) !important; border-color: var(--offline); }
    li.unknown .swatch { background: var(--unknown) !important; }
    .who { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .who small { font-weight: 400; color: var(--muted); }
    .state { font-size: 12px; font-weight: 600; text-transform: uppercase; letter-spacing: .04em; text-align: right; }
    li.online .state { color: var(--online); } li.stale .state { color: var(--stale); }
    li.offline .state { color: var(--offline); } li.unknown .state { color: var(--unknown); }
    .detail { grid-column: 2 / 4; font-size: 12px; color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .when { font-variant-numeric: tabular-nums; }
    @media (max-width: 700px) {
      main { flex-direction: column; }
      #mapwrap { flex: none; height: 58vh; min-height: 260px; }
      aside { width: auto; border-left: none; border-top: 1px solid var(--line); flex: 1; }
      header { flex-wrap: nowrap; padding: 6px 10px; gap: 8px; }
      header h1 { font-size: 16px; }
      select#circle { flex: 1; min-width: 0; max-width: none; }
      .pill { margin-left: 0; padding: 4px 8px; }
    }
    @media (prefers-color-scheme: dark) {
      :root {
        --bg: #11161c; --panel: #1a2129; --ink: #e6ebf0; --muted: #9aa6b3; --line: #2a333d;
        --map: #151b22; --grid: #222b35; --grid-major: #2d3844;
      }
      .member .label-bg { fill: rgba(26,33,41,.92); stroke: rgba(255,255,255,.12); }
      .member .body { stroke: #1a2129; }
      .scalebar, .attribution { background: rgba(26,33,41,.85); }
      .pill { background: #3b1d1d; color: #f3a6a0; } .pill.open { background: #173222; color: #8fdca8; }
    }
    """#
}
