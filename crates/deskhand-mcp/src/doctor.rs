//! The doctor's findings over MCP: a resource an agent (or its user) reads for every check and
//! fix, and a line in the server's instructions when something warns or fails. The findings
//! themselves come from the binary, which knows the platform; this crate only serves them.

use std::sync::Arc;

use rmcp::model::{
    ErrorData, ListResourcesResult, ReadResourceRequestParams, ReadResourceResult, Resource,
    ResourceContents,
};

/// The resource that holds `deskhand doctor`'s findings.
pub const DOCTOR_URI: &str = "deskhand://doctor";

/// Runs the doctor and gives its report as text; called again at every read, so a fix the user
/// made shows at once.
pub type Diagnose = Arc<dyn Fn() -> String + Send + Sync>;

/// What the server knows of its desktop's setup.
#[derive(Clone)]
pub struct SetupCheck {
    /// The line added to the instructions naming the desktop found, when the environment did
    /// not name it and it was looked for.
    pub desktop: Option<String>,
    /// The line added to the instructions, when the check at start found a problem.
    pub problems: Option<String>,
    pub diagnose: Diagnose,
}

pub(crate) fn list() -> ListResourcesResult {
    ListResourcesResult::with_all_items(vec![
        Resource::new(DOCTOR_URI, "doctor")
            .with_title("deskhand doctor")
            .with_description(
                "Whether deskhand works on this desktop (display, input, capture, accessibility bus and each app on it, OCR, clipboard, files), each problem with its fix: the report of `deskhand doctor`.",
            )
            .with_mime_type("text/plain"),
    ])
}

pub(crate) async fn read(
    check: Option<&SetupCheck>,
    request: ReadResourceRequestParams,
) -> Result<ReadResourceResult, ErrorData> {
    let (Some(check), true) = (check, request.uri == DOCTOR_URI) else {
        let served = match check {
            Some(_) => format!("the one resource is {DOCTOR_URI}"),
            None => "this server serves no resources".to_owned(),
        };
        // The URI in the error's data, as the specification asks, for clients to match it.
        return Err(ErrorData::resource_not_found(
            format!("there is no resource {:?}; {served}", request.uri),
            Some(serde_json::json!({"uri": request.uri})),
        ));
    };
    let diagnose = check.diagnose.clone();
    let text = tokio::task::spawn_blocking(move || diagnose())
        .await
        .map_err(|err| ErrorData::internal_error(format!("the doctor failed: {err}"), None))?;
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, DOCTOR_URI).with_mime_type("text/plain"),
    ]))
}
