/**
 * A user's own Codex config.toml for offline runs: the model provider is the mock on 127.0.0.1,
 * update checks, analytics and feedback are off, and the test project is trusted. Tests write it
 * before Forge merges its own entries, so merges are checked against a real user file.
 */
export const codexUserConfig = (mockUrl: string, project: string) => `# my codex settings
model = "gpt-5.4"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "${mockUrl}/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
requires_openai_auth = false
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[projects."${project}"]
trust_level = "trusted"
`;
