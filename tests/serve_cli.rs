//! `precedent serve` end to end: the real binary on a free port, spoken to over HTTP.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};

use common::{bin, fixture, run, run_json, stderr};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

/// A running server, stopped when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `precedent serve --port 0 ARGS` and reads the address it prints.
fn start(args: &[&str]) -> Server {
    let mut child = Command::new(bin())
        .args(["serve", "--port", "0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the precedent binary runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("a line");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    Server { child, addr }
}

/// One request with `body` (raw bytes, sent as JSON unless `content_type` says otherwise):
/// the status and the body, parsed as JSON.
fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &[u8],
    content_type: &str,
) -> (u16, serde_json::Value) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("write");
    // A body over the limit may be refused before it is all read.
    let _ = stream.write_all(body);
    let mut text = Vec::new();
    stream.read_to_end(&mut text).expect("read");
    let text = String::from_utf8_lossy(&text);
    let status: u16 = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
    let json = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    (status, json)
}

fn post(addr: SocketAddr, path: &str, body: &str) -> (u16, serde_json::Value) {
    request(addr, "POST", path, body.as_bytes(), "application/json")
}

fn get(addr: SocketAddr, path: &str) -> (u16, serde_json::Value) {
    request(addr, "GET", path, b"", "application/json")
}

/// The engine's last move of a game's view is explained and has its precedents, each with
/// its game.
fn assert_explained(view: &serde_json::Value) {
    let last = &view["last"];
    assert!(last["move"].is_string(), "{view}");
    let explanation = last["explanation"].as_array().expect("lines");
    assert!(!explanation.is_empty(), "{view}");
    let precedents = last["precedents"].as_array().expect("precedents");
    assert!(!precedents.is_empty(), "{view}");
    for p in precedents {
        assert!(p["white"].is_string() && p["black"].is_string(), "{p}");
        assert!((0.0..=1.0).contains(&p["similarity"].as_f64().expect("similarity")));
        // The position it remembers, and where it differs from the board: nowhere when it is
        // this very position.
        let fen: Fen = p["fen"]
            .as_str()
            .expect("its position")
            .parse()
            .expect("FEN");
        fen.into_position::<Chess>(CastlingMode::Standard)
            .expect("a legal position");
        let differs = p["differs"].as_array().expect("differing squares");
        if p["exact"] == true {
            assert!(differs.is_empty(), "{p}");
        }
        assert!(p["base"].is_string(), "{p}");
    }
}

/// The game of precedent `p` opened through its link: replayed to its ply, the position it
/// remembers.
fn assert_opens(addr: SocketAddr, p: &serde_json::Value) {
    let path = format!(
        "/api/casegames/{}/{}",
        p["base"].as_str().expect("base"),
        p["game_index"]
    );
    let (status, game) = get(addr, &path);
    assert_eq!(status, 200, "{path}: {game}");
    let ply = p["ply"].as_u64().expect("ply") as usize;
    let moves = game["moves"].as_array().expect("moves");
    assert!(
        moves.len() > ply,
        "{path}: {} moves, ply {ply}",
        moves.len()
    );
    let mut pos = Chess::default();
    for m in &moves[..ply] {
        let uci: shakmaty::uci::UciMove = m.as_str().expect("uci").parse().expect("UCI");
        let m = uci.to_move(&pos).expect("legal");
        pos.play_unchecked(m);
    }
    let fen = Fen::from_position(&pos, shakmaty::EnPassantMode::Legal).to_string();
    assert_eq!(
        fen.split(' ').next(),
        p["fen"].as_str().expect("fen").split(' ').next(),
        "{path}"
    );
    assert!(
        game["pgn"]
            .as_str()
            .expect("pgn")
            .contains(p["white"].as_str().expect("white"))
    );
}

/// Plays `moves` user moves of the game `view` (the first legal move each time), checking
/// each engine reply.
fn play(addr: SocketAddr, mut view: serde_json::Value, moves: usize) -> serde_json::Value {
    let id = view["id"].as_u64().expect("an id");
    for _ in 0..moves {
        let fen: Fen = view["fen"].as_str().expect("fen").parse().expect("a FEN");
        let pos: Chess = fen
            .into_position(CastlingMode::Standard)
            .expect("a position");
        let m = pos.legal_moves()[0]
            .to_uci(CastlingMode::Standard)
            .to_string();
        let (status, next) = post(
            addr,
            &format!("/api/games/{id}/move"),
            &format!(r#"{{"move":"{m}"}}"#),
        );
        assert_eq!(status, 200, "{next}");
        assert_explained(&next);
        view = next;
    }
    view
}

/// `name`'s player file, built from the fixture into `dir`.
fn player_file(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let file = dir.join(format!("{name}.cb"));
    let sample = fixture("lichess-rapid-sample.pgn.zst");
    run_json(&[
        "build",
        sample.to_str().expect("utf-8"),
        "--player",
        name,
        "--fit-depth",
        "2",
        "-o",
        file.to_str().expect("utf-8"),
        "--json",
    ]);
    file
}

/// EricRosen's player file, built from the fixture into `dir`.
fn eric_file(dir: &std::path::Path) -> std::path::PathBuf {
    player_file(dir, "EricRosen")
}

#[test]
fn games_against_a_level_and_a_player_file_show_the_precedents_of_every_engine_move() {
    let dir = tempfile::tempdir().expect("tempdir");
    let eric = eric_file(dir.path());
    let server = start(&["--casebase", eric.to_str().expect("utf-8")]);
    let (status, opponents) = get(server.addr, "/api/opponents");
    assert_eq!(status, 200);
    assert_eq!(opponents["players"][0]["name"], "EricRosen", "{opponents}");
    assert!(
        opponents["levels"]
            .as_array()
            .expect("levels")
            .contains(&1400.into())
    );
    // Level 1400 with White: it moves first.
    let (status, view) = post(
        server.addr,
        "/api/games",
        r#"{"opponent":{"kind":"level","elo":1400},"color":"black","movetime_ms":100}"#,
    );
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["moves"].as_array().expect("moves").len(), 1, "{view}");
    assert_explained(&view);
    let view = play(server.addr, view, 4);
    assert_eq!(view["moves"].as_array().expect("moves").len(), 9, "{view}");
    // The player file, its level said in the explanation.
    let (status, view) = post(
        server.addr,
        "/api/games",
        r#"{"opponent":{"kind":"player","id":0},"color":"white","movetime_ms":100}"#,
    );
    assert_eq!(status, 200, "{view}");
    assert!(view["last"].is_null(), "{view}");
    let view = play(server.addr, view, 3);
    let said = view["last"]["explanation"].to_string();
    assert!(said.contains("the player's"), "{said}");
    // The game is kept: read again, the same.
    let id = view["id"].as_u64().expect("id");
    let (status, again) = get(server.addr, &format!("/api/games/{id}"));
    assert_eq!((status, &again["moves"]), (200, &view["moves"]));
    // Its PGN names the engine and replays to the same position.
    let pgn = again["pgn"].as_str().expect("pgn");
    assert!(
        pgn.contains("[Black \"Precedent (as EricRosen)\"]"),
        "{pgn}"
    );
    let sans: Vec<&str> = pgn
        .split("\n\n")
        .nth(1)
        .expect("movetext")
        .split_whitespace()
        .filter(|t| !t.ends_with('.') && *t != "*")
        .collect();
    assert_eq!(sans.len(), 6, "{pgn}");
    let mut pos = Chess::default();
    for san in sans {
        let m = san
            .parse::<shakmaty::san::San>()
            .expect("SAN")
            .to_move(&pos)
            .expect("legal");
        pos.play_unchecked(m);
    }
    let fen = Fen::from_position(&pos, shakmaty::EnPassantMode::Legal).to_string();
    assert_eq!(fen, again["fen"].as_str().expect("fen"));
}

#[test]
fn a_game_on_a_clock_takes_back_offers_a_draw_resigns_and_opens_its_precedents_games() {
    let server = start(&[]);
    let addr = server.addr;
    // Three minutes and two seconds a move; the engine takes a person's time.
    let (status, view) = post(
        addr,
        "/api/games",
        r#"{"opponent":{"kind":"level","elo":1600},"color":"black","clock":{"initial_s":180,"increment_s":2},"human_time":true}"#,
    );
    assert_eq!(status, 200, "{view}");
    assert_explained(&view);
    let clock = &view["clock"];
    assert_eq!(clock["running"], "black", "{view}");
    assert!(
        clock["white_ms"].as_u64().expect("white") > 170_000,
        "{clock}"
    );
    let said = view["last"]["explanation"].to_string();
    assert!(said.contains("human time"), "{said}");
    let view = play(addr, view, 3);
    let id = view["id"].as_u64().expect("id");
    for p in view["last"]["precedents"]
        .as_array()
        .expect("precedents")
        .iter()
        .take(3)
    {
        assert_opens(addr, p);
    }
    // Each engine move's why stays readable by its ply.
    let plies = view["engine_plies"].as_array().expect("engine plies");
    assert_eq!(plies.len(), 4, "{view}");
    let (status, why) = get(addr, &format!("/api/games/{id}/why/{}", plies[1]));
    assert_eq!(status, 200, "{why}");
    assert!(
        why["precedents"].as_array().is_some_and(|p| !p.is_empty()),
        "{why}"
    );
    // Taking back: the user's last move and the reply go.
    let (status, back) = post(addr, &format!("/api/games/{id}/takeback"), "{}");
    assert_eq!(status, 200, "{back}");
    assert_eq!(back["moves"].as_array().expect("moves").len(), 5, "{back}");
    assert_eq!(back["turn"], "black");
    // A draw offered early: the engine answers, one way or the other.
    let (status, offered) = post(addr, &format!("/api/games/{id}/draw"), "{}");
    assert_eq!(status, 200, "{offered}");
    assert!(
        offered["notice"]
            .as_str()
            .is_some_and(|n| n.contains("draw")),
        "{offered}"
    );
    if offered["result"].is_null() {
        let (status, resigned) = post(addr, &format!("/api/games/{id}/resign"), "{}");
        assert_eq!(status, 200, "{resigned}");
        assert_eq!(resigned["result"], "1-0 Black resigned", "{resigned}");
        assert!(
            resigned["pgn"]
                .as_str()
                .expect("pgn")
                .contains("[Result \"1-0\"]")
        );
        assert!(resigned["clock"]["running"].is_null(), "{resigned}");
    }
    // Over: no move, no takeback, no second resignation.
    for what in ["move", "takeback", "resign", "draw"] {
        let (status, answer) = post(
            addr,
            &format!("/api/games/{id}/{what}"),
            r#"{"move":"e7e5"}"#,
        );
        assert!(status == 409 || status == 422, "{what}: {status} {answer}");
    }
}

#[test]
fn a_pasted_game_is_analysed_a_dossier_read_and_its_player_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let eric = eric_file(dir.path());
    let other = player_file(dir.path(), "pusha_shri");
    let server = start(&[
        "--casebase",
        eric.to_str().expect("utf-8"),
        "--casebase",
        other.to_str().expect("utf-8"),
    ]);
    let addr = server.addr;
    // One of EricRosen's games, as his file replays it: at least 40 moves.
    let (status, game) = get(addr, "/api/casegames/player0/0");
    assert_eq!(status, 200, "{game}");
    let pgn = game["pgn"].as_str().expect("pgn").to_string();
    let plies = game["san"].as_array().expect("san").len();
    assert!(plies >= 40, "{plies} plies");
    let body = serde_json::json!({ "pgn": pgn, "opponent": {"kind": "level", "elo": 1800}, "movetime_ms": 20 });
    let (status, analysis) = post(addr, "/api/analyses", &body.to_string());
    assert_eq!(status, 200, "{analysis}");
    let moves = analysis["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), plies, "{analysis}");
    for m in moves {
        let p = m["probability"].as_f64().expect("probability");
        assert!((0.0..=1.0).contains(&p), "{m}");
        assert!(m["rank"].as_u64().expect("rank") >= 1);
        let forced = m["legal"] == 1;
        assert!(m["alternative"].is_array() || forced, "{m}");
        assert!(m["precedent"]["fen"].is_string(), "{m}");
        assert!(m["loss_cp"].is_null(), "no judge: {m}");
    }
    assert!(analysis["mean_log_likelihood"].as_f64().expect("mean") < 0.0);
    // As his own file reads it, one side's moves: likelier than the level finds them.
    let body = serde_json::json!({ "pgn": pgn, "opponent": {"kind": "player", "id": 0}, "movetime_ms": 20, "sides": "white" });
    let (status, his) = post(addr, "/api/analyses", &body.to_string());
    assert_eq!(status, 200, "{his}");
    assert!(
        his["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .all(|m| m["side"] == "white")
    );
    // The dossier: his openings as a tree of positions, the report's figures and chart.
    let (status, dossier) = get(addr, "/api/players/0/dossier");
    assert_eq!(status, 200, "{dossier}");
    assert_eq!(dossier["dossier"]["profile"]["name"], "EricRosen");
    let tree = dossier["white_tree"].as_array().expect("tree");
    assert!(
        !tree.is_empty() && tree.iter().all(|n| n["fen"].is_string()),
        "{dossier}"
    );
    // Who played it: his file first of the two.
    let body = serde_json::json!({ "pgn": pgn, "player": "EricRosen" });
    let (status, who) = post(addr, "/api/who", &body.to_string());
    assert_eq!(status, 200, "{who}");
    assert_eq!(who["ranking"][0]["name"], "EricRosen", "{who}");
    assert_eq!(
        who["ranking"].as_array().expect("ranking").len(),
        2,
        "{who}"
    );
}

#[test]
fn every_malformed_request_gets_a_4xx_with_one_line_and_the_server_keeps_serving() {
    let server = start(&[]);
    let addr = server.addr;
    let (status, view) = post(
        addr,
        "/api/games",
        r#"{"opponent":{"kind":"default"},"color":"white","movetime_ms":50}"#,
    );
    assert_eq!(status, 200, "{view}");
    let id = view["id"].as_u64().expect("id");
    let game = format!("/api/games/{id}/move");
    let big = format!(r#"{{"move":"{}"}}"#, "a".repeat(300_000));
    // 72 plies at 2 s a move: more thinking than an analysis may ask for.
    let long = "Nf3 Nf6 Ng1 Ng8 ".repeat(18);
    let costly =
        serde_json::json!({"pgn": long, "opponent": {"kind": "default"}, "movetime_ms": 2000})
            .to_string()
            .into_bytes();
    let cases: Vec<(&str, String, Vec<u8>, &str, u16)> = vec![
        (
            "POST",
            format!("/api/games/{id}/takeback"),
            Vec::new(),
            "application/json",
            409,
        ),
        (
            "POST",
            "/api/games".into(),
            b"{bad".to_vec(),
            "application/json",
            400,
        ),
        (
            "POST",
            "/api/games".into(),
            b"{}".to_vec(),
            "text/plain",
            415,
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"opponent":{"kind":"level","elo":3000},"color":"white"}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"opponent":{"kind":"player","id":0},"color":"white"}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"opponent":{"kind":"default"},"color":"red"}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"opponent":{"kind":"default"},"color":"white","movetime_ms":0}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"opponent":{"kind":"default"},"color":"white","fen":"x"}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            game.clone(),
            br#"{"move":"e2e5"}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            game.clone(),
            br#"{"move":"zz"}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            game.clone(),
            big.into_bytes(),
            "application/json",
            413,
        ),
        (
            "POST",
            "/api/games/99999/move".into(),
            br#"{"move":"e2e4"}"#.to_vec(),
            "application/json",
            404,
        ),
        (
            "GET",
            "/api/games/99999".into(),
            Vec::new(),
            "application/json",
            404,
        ),
        (
            "GET",
            "/api/games/abc".into(),
            Vec::new(),
            "application/json",
            400,
        ),
        (
            "GET",
            "/nothing/here".into(),
            Vec::new(),
            "application/json",
            404,
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"opponent":{"kind":"default"},"color":"white","clock":{"initial_s":0}}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"opponent":{"kind":"default"},"color":"white","movetime_ms":100,"clock":{"initial_s":60}}"#
                .to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            format!("/api/games/{id}/why/0"),
            Vec::new(),
            "application/json",
            405,
        ),
        (
            "GET",
            format!("/api/games/{id}/why/999"),
            Vec::new(),
            "application/json",
            409,
        ),
        (
            "GET",
            "/api/casegames/nowhere/1".into(),
            Vec::new(),
            "application/json",
            404,
        ),
        (
            "GET",
            "/api/casegames/generic/4000000000".into(),
            Vec::new(),
            "application/json",
            404,
        ),
        (
            "GET",
            "/api/casegames/generic/x".into(),
            Vec::new(),
            "application/json",
            400,
        ),
        (
            "POST",
            "/api/analyses".into(),
            br#"{"pgn":"1. e4 e5 2. Ke3","opponent":{"kind":"default"}}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/analyses".into(),
            br#"{"pgn":"[White \"a\"","opponent":{"kind":"default"}}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/analyses".into(),
            br#"{"pgn":"","opponent":{"kind":"default"}}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/analyses".into(),
            br#"{"pgn":"1. e4","opponent":{"kind":"player","id":3}}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/analyses".into(),
            br#"{"pgn":"1. e4","opponent":{"kind":"default"},"movetime_ms":0}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/analyses".into(),
            br#"{"pgn":"[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4","opponent":{"kind":"default"}}"#
                .to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/who".into(),
            br#"{"pgn":"1. e4 e5"}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/analyses".into(),
            costly,
            "application/json",
            422,
        ),
        (
            "POST",
            "/api/games".into(),
            br#"{"opponent":{"kind":"default"},"color":"white","clock":{"initial_s":3600}}"#.to_vec(),
            "application/json",
            422,
        ),
        (
            "GET",
            "/api/players/0/dossier".into(),
            Vec::new(),
            "application/json",
            422,
        ),
        (
            "GET",
            "/api/players/x/dossier".into(),
            Vec::new(),
            "application/json",
            400,
        ),
    ];
    for round in 0..20 {
        for (method, path, body, content_type, want) in &cases {
            let (status, answer) = request(addr, method, path, body, content_type);
            assert_eq!(status, *want, "round {round}: {method} {path}: {answer}");
            let line = answer["error"].as_str().expect("an error line");
            assert!(!line.is_empty() && !line.contains('\n'), "{line:?}");
        }
    }
    // Still serving: the game goes on, and its move is the user's again after the engine's.
    let (status, view) = post(addr, &game, r#"{"move":"e2e4"}"#);
    assert_eq!(status, 200, "{view}");
    assert_explained(&view);
    assert_eq!(view["turn"], "white");
}

#[test]
fn serve_refuses_a_missing_file_and_a_file_that_is_not_a_players() {
    let out = run(&["serve", "--port", "0", "--casebase", "/no/such/file.cb"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("/no/such/file.cb"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = dir.path().join("plain.cb");
    run_json(&[
        "build",
        fixture("small.pgn").to_str().expect("utf-8"),
        "-o",
        plain.to_str().expect("utf-8"),
        "--json",
    ]);
    let out = run(&[
        "serve",
        "--port",
        "0",
        "--casebase",
        plain.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not a player file"),
        "{}",
        stderr(&out)
    );
}

/// Whether this machine can run the page in a headless Chromium: the browser, its driver, and
/// selenium in the tests' Python (`scripts/test` installs them).
fn browser_missing() -> Option<String> {
    for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
        if !std::path::Path::new(tool).exists() {
            return Some(format!("{tool} is not installed"));
        }
    }
    let selenium = Command::new(common::python())
        .args(["-c", "import selenium, chess"])
        .status()
        .is_ok_and(|s| s.success());
    (!selenium).then(|| format!("{} has no selenium or chess", common::python()))
}

#[test]
fn every_page_works_in_a_real_browser_play_analyse_player_and_who() {
    if let Some(why) = browser_missing() {
        eprintln!("skipped: {why} (scripts/test installs it)");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let eric = eric_file(dir.path());
    let server = start(&["--casebase", eric.to_str().expect("utf-8")]);
    let out = Command::new(common::python())
        .arg(fixture("../browser/pages.py"))
        .arg(format!("http://{}/", server.addr))
        .arg(dir.path())
        .arg("EricRosen")
        .output()
        .expect("python runs");
    assert!(out.status.success(), "{}", stderr(&out));
    for page in ["play", "analyse", "player", "who"] {
        for width in ["desktop", "phone"] {
            let shot = format!("{page}-{width}.png");
            let size = std::fs::metadata(dir.path().join(&shot)).map_or(0, |m| m.len());
            assert!(size > 10_000, "{shot}: {size} bytes");
        }
    }
}
