#!/usr/bin/env python3
"""The seed's tiny-agent: a ReAct loop with one tool, run_python, and its own MAX_STEPS.

Standard library only. It talks to any OpenAI-compatible chat-completions API: under
`bench run --agent-cmd "python3 examples/agents/tiny_agent.py"` that is loopbench's metering
gateway (OPENAI_BASE_URL, OPENAI_API_KEY), with the scenario's prompt and goal in
LOOPBENCH_SYSTEM and LOOPBENCH_GOAL. Prints the final answer as its last line; with
AGENT_USAGE_DIR set it also writes the usage the API reported for each call to
AGENT_USAGE_DIR/<LOOPBENCH_RUN_ID>.json.
"""
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

BASE_URL = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
API_KEY = os.environ.get("OPENAI_API_KEY", "")
MODEL = os.environ.get("LOOPBENCH_MODEL") or os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
MAX_STEPS = int(os.environ.get("TINY_AGENT_MAX_STEPS") or 12)
SYSTEM = os.environ.get("LOOPBENCH_SYSTEM") or "You solve tasks with tools. Use run_python for any computation."
GOAL = os.environ.get("LOOPBENCH_GOAL") or "Compute the sum of squares of the integers from 1 to 100."
SEED = os.environ.get("LOOPBENCH_SEED")

TOOLS = [{
    "type": "function",
    "function": {
        "name": "run_python",
        "description": "Run Python 3 code and return what it prints.",
        "parameters": {
            "type": "object",
            "properties": {"code": {"type": "string", "description": "The program to run."}},
            "required": ["code"],
            "additionalProperties": False,
        },
    },
}]


def chat(messages):
    body = {"model": MODEL, "messages": messages, "tools": TOOLS}
    if SEED:
        body["seed"] = int(SEED)
    req = urllib.request.Request(
        f"{BASE_URL}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "authorization": f"Bearer {API_KEY}"},
    )
    with urllib.request.urlopen(req, timeout=120) as res:
        return json.load(res)


def run_python(code):
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=10)
    except subprocess.TimeoutExpired:
        return "Error: timed out after 10 s"
    return (out.stdout + out.stderr)[-2000:] or "(no output)"


USAGE = []


def save_usage():
    folder = os.environ.get("AGENT_USAGE_DIR")
    if folder:
        with open(os.path.join(folder, os.environ.get("LOOPBENCH_RUN_ID", "run") + ".json"), "w") as f:
            json.dump(USAGE, f)


def main():
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": GOAL}]
    for step in range(1, MAX_STEPS + 1):
        try:
            reply = chat(messages)
        except urllib.error.HTTPError as e:
            # A brake at the gateway (403, code loopbench_*) ends the run; so does any other refusal.
            error = json.loads(e.read() or b"{}").get("error", {})
            print(f"stopped at step {step}: {error.get('code')}: {error.get('message')}", file=sys.stderr)
            return 3
        usage = reply.get("usage") or {}
        USAGE.append({"input": usage.get("prompt_tokens"), "output": usage.get("completion_tokens")})
        message = reply["choices"][0]["message"]
        messages.append(message)
        calls = message.get("tool_calls") or []
        if not calls:
            print(message.get("content") or "")
            return 0
        for call in calls:
            try:
                code = json.loads(call["function"]["arguments"]).get("code", "")
                result = run_python(code) if call["function"]["name"] == "run_python" else f"Error: unknown tool {call['function']['name']}"
            except (ValueError, AttributeError) as e:
                result = f"Error: bad arguments ({e})"
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    print(f"gave up after MAX_STEPS={MAX_STEPS} steps", file=sys.stderr)
    return 4


if __name__ == "__main__":
    code = main()
    save_usage()
    sys.exit(code)
