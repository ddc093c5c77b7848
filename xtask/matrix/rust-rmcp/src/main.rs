//! An MCP server on the official Rust SDK (rmcp), over its stdio transport,
//! for the rpcspec matrix: tools from `#[tool_router]`, a prompt from
//! `#[prompt_router]`, one static resource by hand. Logs go to stderr.
//!
//! Tools: `echo` {text}, `add` {a, b}, `fail` (a tool error, `isError:
//! true`), `slow` {ms} (sleeps, with progress notifications when the request
//! carries a progress token; stops when cancelled). Prompt: `greet` {name}.
//! Resource: `rpcspec://hello`.

use std::time::Duration;

use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt,
    handler::server::wrapper::Parameters,
    model::{
        CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
        ProgressNotificationParam, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
        ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities, ServerConfig,
    },
    prompt, prompt_handler, prompt_router, schemars,
    service::RequestContext,
    tool, tool_handler, tool_router,
    transport::stdio,
};
use serde::Deserialize;

const RESOURCE_URI: &str = "rpcspec://hello";
const RESOURCE_TEXT: &str = "Hello from rmcp, the official Rust MCP SDK.";

#[derive(Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct SlowArgs {
    /// How long to take, in milliseconds.
    ms: u64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

#[derive(Clone)]
struct Matrix;

#[tool_router]
impl Matrix {
    #[tool(description = "Returns its text argument")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Adds two numbers")]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }

    #[tool(description = "Always fails: a tool error result (isError: true)")]
    fn fail(&self) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text("this tool always fails")])
    }

    #[tool(
        description = "Sleeps `ms` milliseconds, reporting progress if the request has a progressToken"
    )]
    async fn slow(
        &self,
        Parameters(SlowArgs { ms }): Parameters<SlowArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        const STEP: u64 = 250;
        let token = context.meta.get_progress_token();
        let mut done = 0;
        while done < ms {
            let step = STEP.min(ms - done);
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(step)) => {}
                // rmcp drops the reply to a cancelled request; stop working too.
                _ = context.ct.cancelled() => {
                    return CallToolResult::error(vec![ContentBlock::text("cancelled")]);
                }
            }
            done += step;
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), done as f64)
                    .with_total(ms as f64);
                if let Err(e) = context.peer.notify_progress(progress).await {
                    tracing::warn!("cannot send progress: {e}");
                }
            }
        }
        CallToolResult::success(vec![ContentBlock::text(format!("slept {ms} ms"))])
    }
}

#[prompt_router]
impl Matrix {
    #[prompt(name = "greet", description = "Greets someone by name")]
    fn greet(&self, Parameters(GreetArgs { name }): Parameters<GreetArgs>) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(
            Role::User,
            format!("Please greet {name}."),
        )]
    }
}

#[tool_handler]
#[prompt_handler]
impl ServerHandler for Matrix {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
        // rmcp's own name and version ("rmcp", the pinned release).
        .with_server_info(Implementation::from_build_env())
        .with_instructions("rpcspec matrix server on rmcp: tools echo, add, fail, slow; prompt greet; one resource")
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new(RESOURCE_URI, "hello")
                .with_description("A static text resource")
                .with_mime_type("text/plain"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == RESOURCE_URI {
            Ok(
                ReadResourceResult::new(vec![ResourceContents::text(RESOURCE_TEXT, RESOURCE_URI)])
                    .into(),
            )
        } else {
            Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                Some(serde_json::json!({ "uri": request.uri })),
            ))
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // stdout is the protocol: logs go to stderr.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::WARN)
        .init();
    let service = Matrix.serve(stdio()).await?;
    service.waiting().await?;
    Ok(())
}
