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

use crate::games::{GameError, Opponent, State};

/// The largest request body read.
const MAX_BODY: usize = 64 * 1024;

/// The thinking time a move when a game does not say.
const DEFAULT_MOVETIME_MS: u64 = 1000;

/// The longest thinking time a move a game may ask for.
const MAX_MOVETIME_MS: u64 = 60_000;

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
            GameError::NotYourTurn(_) => StatusCode::CONFLICT,
            GameError::NoOpponent(_) | GameError::Move(_) => StatusCode::UNPROCESSABLE_ENTITY,
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

/// A new game: who the engine is, the user's colour, the engine's time a move.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    opponent: Opponent,
    color: UserColor,
    #[serde(default)]
    movetime_ms: Option<u64>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum UserColor {
    White,
    Black,
}

/// A move of the user's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UserMove {
    #[serde(rename = "move")]
    uci: String,
}

/// The routes: `GET /api/opponents`, `POST /api/games`, `GET /api/games/{id}`,
/// `POST /api/games/{id}/move`.
pub fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/assets/{name}", get(asset))
        .route("/api/opponents", get(opponents))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}", get(show_game))
        .route("/api/games/{id}/move", post(play))
        .fallback(|| async { Failure(StatusCode::NOT_FOUND, "no such page".into()) })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// The page's files, inside the binary: name, content type, contents.
const ASSETS: [(&str, &str, &str); 6] = [
    (
        "app.js",
        "text/javascript",
        include_str!("../assets/page/app.js"),
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
    let ms = req.movetime_ms.unwrap_or(DEFAULT_MOVETIME_MS);
    if !(1..=MAX_MOVETIME_MS).contains(&ms) {
        return Err(Failure(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("movetime_ms {ms} is outside 1..{MAX_MOVETIME_MS}"),
        ));
    }
    let user = match req.color {
        UserColor::White => Color::White,
        UserColor::Black => Color::Black,
    };
    let (id, played) = state.start(req.opponent, user, Duration::from_millis(ms))?;
    let view = tokio::task::spawn_blocking(move || {
        let mut game = played.lock().unwrap_or_else(|e| e.into_inner());
        state.engine_moves(&mut game);
        game.view(id)
    })
    .await
    .map_err(|e| Failure(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    Ok(Json(view))
}

async fn show_game(
    Extract(state): Extract<Arc<State>>,
    id: Result<Path<u64>, PathRejection>,
) -> Result<Json<crate::games::View>, Failure> {
    let Path(id) = id?;
    let played = state.game(id)?;
    let view = played.lock().unwrap_or_else(|e| e.into_inner()).view(id);
    Ok(Json(view))
}

async fn play(
    Extract(state): Extract<Arc<State>>,
    id: Result<Path<u64>, PathRejection>,
    body: Result<Json<UserMove>, JsonRejection>,
) -> Result<Json<crate::games::View>, Failure> {
    let Path(id) = id?;
    let Json(mv) = body?;
    let played = state.game(id)?;
    let view = tokio::task::spawn_blocking(move || {
        let mut game = played.lock().unwrap_or_else(|e| e.into_inner());
        game.user_moves(&mv.uci)?;
        state.engine_moves(&mut game);
        Ok::<_, GameError>(game.view(id))
    })
    .await
    .map_err(|e| Failure(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    Ok(Json(view))
}
