//! The HTTP interface: JSON in and out, every malformed request a 4xx with a one-line reason.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, Path, State as Extract};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use shakmaty::Color;

use crate::games::{GameError, Opponent, State, TimeRule};
use crate::precedents::{BaseId, CaseGame, case_game};

/// The largest request body read (a pasted PGN of a few hundred games).
const MAX_BODY: usize = 256 * 1024;

/// The time a move of an analysis is judged in, when the request does not say.
const DEFAULT_ANALYSIS_MS: u64 = 100;

/// The longest an analysis may give each move.
const MAX_ANALYSIS_MS: u64 = 2_000;

/// The thinking time a move when a game does not say.
const DEFAULT_MOVETIME_MS: u64 = 1000;

/// The longest thinking time a move a game may ask for.
const MAX_MOVETIME_MS: u64 = 60_000;

/// The longest initial time of a clock, seconds (30 minutes: a move of the engine's is then
/// at most a few minutes).
const MAX_CLOCK_S: f64 = 1_800.0;

/// The largest increment, seconds.
const MAX_INCREMENT_S: f64 = 30.0;

/// A request's failure: its status and one line.
struct Failure(StatusCode, String);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let line = self.1.replace('\n', " ");
        (self.0, Json(serde_json::json!({ "error": line }))).into_response()
    }
}

impl From<GameError> for Failure {
    fn from(e: GameError) -> Failure {
        let status = match e {
            GameError::NoGame(_) => StatusCode::NOT_FOUND,
            GameError::NotNow(_) | GameError::Nothing(_) => StatusCode::CONFLICT,
            GameError::BadPgn(_) => StatusCode::UNPROCESSABLE_ENTITY,
            GameError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            GameError::NoOpponent(_) | GameError::Move(_) => StatusCode::UNPROCESSABLE_ENTITY,
            GameError::Judge(_) => StatusCode::BAD_GATEWAY,
        };
        Failure(status, e.to_string())
    }
}

impl From<JsonRejection> for Failure {
    fn from(e: JsonRejection) -> Failure {
        Failure(e.status(), e.body_text())
    }
}

impl From<PathRejection> for Failure {
    fn from(e: PathRejection) -> Failure {
        Failure(e.status(), e.body_text())
    }
}

/// A new game: who the engine is, the user's colour, the engine's time a move or a clock for
/// each side, and whether the engine takes a person's time for each move.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    opponent: Opponent,
    color: UserColor,
    #[serde(default)]
    movetime_ms: Option<u64>,
    #[serde(default)]
    clock: Option<ClockRequest>,
    #[serde(default)]
    human_time: bool,
}

/// A clock: each side's initial time and increment, seconds.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockRequest {
    initial_s: f64,
    #[serde(default)]
    increment_s: f64,
}

impl NewGame {
    /// The engine's time, or why the request's is not one.
    fn time(&self) -> Result<TimeRule, Failure> {
        let bad = |what: String| Failure(StatusCode::UNPROCESSABLE_ENTITY, what);
        match (&self.clock, self.movetime_ms) {
            (Some(_), Some(_)) => Err(bad("give movetime_ms or clock, not both".into())),
            (Some(c), None) => {
                if !(1.0..=MAX_CLOCK_S).contains(&c.initial_s) {
                    return Err(bad(format!(
                        "clock initial_s {} is outside 1..{MAX_CLOCK_S}",
                        c.initial_s
                    )));
                }
                if !(0.0..=MAX_INCREMENT_S).contains(&c.increment_s) {
                    return Err(bad(format!(
                        "clock increment_s {} is outside 0..{MAX_INCREMENT_S}",
                        c.increment_s
                    )));
                }
                Ok(TimeRule::Clock {
                    initial: Duration::from_secs_f64(c.initial_s),
                    increment: Duration::from_secs_f64(c.increment_s),
                })
            }
            (None, ms) => {
                let ms = ms.unwrap_or(DEFAULT_MOVETIME_MS);
                if !(1..=MAX_MOVETIME_MS).contains(&ms) {
                    return Err(bad(format!(
                        "movetime_ms {ms} is outside 1..{MAX_MOVETIME_MS}"
                    )));
                }
                Ok(TimeRule::MoveTime(Duration::from_millis(ms)))
            }
        }
    }
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum UserColor {
    White,
    Black,
}

/// A game to analyse: its PGN (the first game is read), who judges its moves, the time for
/// each, and whose moves.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalysisRequest {
    pgn: String,
    opponent: Opponent,
    #[serde(default)]
    movetime_ms: Option<u64>,
    #[serde(default)]
    sides: crate::analyse::Sides,
}

/// Games whose player to find among the player files, and whose moves (default: the games'
/// most frequent name).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WhoRequest {
    pgn: String,
    #[serde(default)]
    player: Option<String>,
}

/// A move of the user's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UserMove {
    #[serde(rename = "move")]
    uci: String,
}

/// The routes: the page and its assets, and the API (docs/web.md lists it): opponents; games
/// (new, shown, a move, takeback, draw, resign, an engine move's why); a precedent's game; an
/// analysis; a player's dossier; who.
pub fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/assets/{name}", get(asset))
        .route("/api/opponents", get(opponents))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}", get(show_game))
        .route("/api/games/{id}/move", post(play))
        .route("/api/games/{id}/takeback", post(take_back))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/draw", post(offer_draw))
        .route("/api/games/{id}/why/{ply}", get(why))
        .route("/api/casegames/{base}/{game}", get(open_case_game))
        .route("/api/analyses", post(analyse))
        .route("/api/players/{id}/dossier", get(dossier))
        .route("/api/who", post(who))
        .fallback(|| async { Failure(StatusCode::NOT_FOUND, "no such page".into()) })
        .method_not_allowed_fallback(|| async {
            Failure(
                StatusCode::METHOD_NOT_ALLOWED,
                "that method is not allowed here".into(),
            )
        })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// The page's files, inside the binary: name, content type, contents.
const ASSETS: [(&str, &str, &str); 11] = [
    (
        "app.js",
        "text/javascript",
        include_str!("../assets/page/app.js"),
    ),
    (
        "ui.js",
        "text/javascript",
        include_str!("../assets/page/ui.js"),
    ),
    (
        "play.js",
        "text/javascript",
        include_str!("../assets/page/play.js"),
    ),
    (
        "analyse.js",
        "text/javascript",
        include_str!("../assets/page/analyse.js"),
    ),
    (
        "player.js",
        "text/javascript",
        include_str!("../assets/page/player.js"),
    ),
    (
        "who.js",
        "text/javascript",
        include_str!("../assets/page/who.js"),
    ),
    (
        "app.css",
        "text/css",
        include_str!("../assets/page/app.css"),
    ),
    (
        "chessground.min.js",
        "text/javascript",
        include_str!("../assets/chessground/chessground.min.js"),
    ),
    (
        "chessground.base.css",
        "text/css",
        include_str!("../assets/chessground/chessground.base.css"),
    ),
    (
        "chessground.brown.css",
        "text/css",
        include_str!("../assets/chessground/chessground.brown.css"),
    ),
    (
        "chessground.cburnett.css",
        "text/css",
        include_str!("../assets/chessground/chessground.cburnett.css"),
    ),
];

async fn page() -> Html<&'static str> {
    Html(include_str!("../assets/page/index.html"))
}

async fn asset(name: Result<Path<String>, PathRejection>) -> Result<Response, Failure> {
    let Path(name) = name?;
    let (_, kind, body) = ASSETS
        .iter()
        .find(|(n, _, _)| *n == name)
        .ok_or_else(|| Failure(StatusCode::NOT_FOUND, format!("no asset {name}")))?;
    Ok(([(header::CONTENT_TYPE, *kind)], *body).into_response())
}

async fn opponents(Extract(state): Extract<Arc<State>>) -> Json<serde_json::Value> {
    Json(state.opponents())
}

async fn new_game(
    Extract(state): Extract<Arc<State>>,
    body: Result<Json<NewGame>, JsonRejection>,
) -> Result<Json<crate::games::View>, Failure> {
    let Json(req) = body?;
    let time = req.time()?;
    let user = match req.color {
        UserColor::White => Color::White,
        UserColor::Black => Color::Black,
    };
    let (id, played) = state.start(req.opponent, user, time, req.human_time)?;
    let view = blocking(move || {
        let mut game = played.lock().unwrap_or_else(|e| e.into_inner());
        state.engine_moves(&mut game);
        Ok(game.view(id))
    })
    .await?;
    Ok(Json(view))
}

async fn show_game(
    Extract(state): Extract<Arc<State>>,
    id: Result<Path<u64>, PathRejection>,
) -> Result<Json<crate::games::View>, Failure> {
    act(state, id, |_| Ok(())).await
}

/// What a request does to a game that needs no engine move (show it, take back, resign, offer
/// a draw), on a thread that may wait: the game is locked while the engine thinks. Its clock is
/// read first (a flag ends the game).
async fn act(
    state: Arc<State>,
    id: Result<Path<u64>, PathRejection>,
    what: fn(&mut crate::games::Played) -> Result<(), GameError>,
) -> Result<Json<crate::games::View>, Failure> {
    let Path(id) = id?;
    let played = state.game(id)?;
    let view = blocking(move || {
        let mut game = played.lock().unwrap_or_else(|e| e.into_inner());
        game.check_time();
        let done = what(&mut game);
        state.recycle(&mut game);
        done?;
        Ok(game.view(id))
    })
    .await?;
    Ok(Json(view))
}

async fn take_back(
    Extract(state): Extract<Arc<State>>,
    id: Result<Path<u64>, PathRejection>,
) -> Result<Json<crate::games::View>, Failure> {
    act(state, id, crate::games::Played::take_back).await
}

async fn resign(
    Extract(state): Extract<Arc<State>>,
    id: Result<Path<u64>, PathRejection>,
) -> Result<Json<crate::games::View>, Failure> {
    act(state, id, crate::games::Played::resign).await
}

async fn offer_draw(
    Extract(state): Extract<Arc<State>>,
    id: Result<Path<u64>, PathRejection>,
) -> Result<Json<crate::games::View>, Failure> {
    act(state, id, crate::games::Played::offer_draw).await
}

async fn why(
    Extract(state): Extract<Arc<State>>,
    path: Result<Path<(u64, usize)>, PathRejection>,
) -> Result<Json<Arc<serde_json::value::RawValue>>, Failure> {
    let Path((id, ply)) = path?;
    let played = state.game(id)?;
    let why = blocking(move || played.lock().unwrap_or_else(|e| e.into_inner()).why(ply)).await?;
    Ok(Json(why))
}

async fn open_case_game(
    Extract(state): Extract<Arc<State>>,
    path: Result<Path<(String, u32)>, PathRejection>,
) -> Result<Json<CaseGame>, Failure> {
    let Path((base, game)) = path?;
    let not_found = |what: String| Failure(StatusCode::NOT_FOUND, what);
    let id = BaseId::parse(&base)
        .filter(|b| state.casebase(*b).is_some())
        .ok_or_else(|| not_found(format!("no case base {base:?}")))?;
    let replayed = blocking(move || {
        state
            .casebase(id)
            .and_then(|cb| case_game(cb, game))
            .ok_or_else(|| GameError::Nothing(format!("no game {game} in that case base")))
    })
    .await
    .map_err(|f| not_found(f.1))?;
    Ok(Json(replayed))
}

async fn play(
    Extract(state): Extract<Arc<State>>,
    id: Result<Path<u64>, PathRejection>,
    body: Result<Json<UserMove>, JsonRejection>,
) -> Result<Json<crate::games::View>, Failure> {
    let Path(id) = id?;
    let Json(mv) = body?;
    let played = state.game(id)?;
    let view = blocking(move || {
        let mut game = played.lock().unwrap_or_else(|e| e.into_inner());
        let moved = game.user_moves(&mv.uci);
        state.recycle(&mut game);
        moved?;
        state.engine_moves(&mut game);
        Ok(game.view(id))
    })
    .await?;
    Ok(Json(view))
}

/// Runs `work` on a thread that may block, its failure a 500.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, GameError> + Send + 'static,
) -> Result<T, Failure> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Failure(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
        .map_err(Failure::from)
}

async fn analyse(
    Extract(state): Extract<Arc<State>>,
    body: Result<Json<AnalysisRequest>, JsonRejection>,
) -> Result<Json<crate::analyse::Analysis>, Failure> {
    let Json(req) = body?;
    let ms = req.movetime_ms.unwrap_or(DEFAULT_ANALYSIS_MS);
    if !(1..=MAX_ANALYSIS_MS).contains(&ms) {
        return Err(Failure(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("movetime_ms {ms} is outside 1..{MAX_ANALYSIS_MS}"),
        ));
    }
    let analysis = blocking(move || {
        let judge = state.judge().map(str::to_string);
        state.lab(|| {
            crate::analyse::analyse(
                &state,
                &req.pgn,
                req.opponent,
                Duration::from_millis(ms),
                req.sides,
                judge.as_deref(),
            )
        })
    })
    .await?;
    Ok(Json(analysis))
}

async fn dossier(
    Extract(state): Extract<Arc<State>>,
    id: Result<Path<usize>, PathRejection>,
) -> Result<Response, Failure> {
    let Path(id) = id?;
    let json = blocking(move || {
        state.dossier(id, || {
            let page = crate::dossier::page(&state, id)?;
            serde_json::to_string(&page).map_err(|e| GameError::Internal(e.to_string()))
        })
    })
    .await?;
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        (*json).clone(),
    )
        .into_response())
}

async fn who(
    Extract(state): Extract<Arc<State>>,
    body: Result<Json<WhoRequest>, JsonRejection>,
) -> Result<Json<crate::who::Ranking>, Failure> {
    let Json(req) = body?;
    let ranking =
        blocking(move || crate::who::who(&state, &req.pgn, req.player.as_deref())).await?;
    Ok(Json(ranking))
}
