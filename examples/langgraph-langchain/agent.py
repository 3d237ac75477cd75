"""The refund desk as a LangGraph agent on LangChain's ChatOpenAI, traced by OpenInference."""

import json

from langchain_core.messages import SystemMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from openinference.instrumentation.langchain import LangChainInstrumentor

LangChainInstrumentor().instrument()  # once per process, on the global tracer provider


@tool
def lookup_order(order_id: str) -> str:
    """Look an order up in the orders database."""
    return json.dumps({"order_id": order_id, "status": "delivered", "total": 42.5})


@tool
def issue_refund(order_id: str, amount: float, idempotency_key: str) -> str:
    """Refund an amount of an order; the idempotency key makes a retry safe."""
    return json.dumps({"refund_id": "re_0001", "amount": amount, "status": "succeeded"})


@tool
def run_shell(command: str) -> str:
    """Run a shell command on the support server."""
    return "(this example never runs a command)"


TOOLS = [lookup_order, issue_refund, run_shell]
INSTRUCTIONS = SystemMessage(
    "You are the refunds assistant of an online shop. Look the order up first."
)
model = ChatOpenAI(model="gpt-4.1-mini").bind_tools(TOOLS)


def call_model(state: MessagesState) -> dict[str, list]:
    return {"messages": [model.invoke([INSTRUCTIONS, *state["messages"]])]}


graph = StateGraph(MessagesState)
graph.add_node("agent", call_model)
graph.add_node("tools", ToolNode(TOOLS))
graph.add_edge(START, "agent")
graph.add_conditional_edges("agent", tools_condition)  # tool calls -> tools, else the end
graph.add_edge("tools", "agent")
agent = graph.compile(name="refund-desk")


def ask(question: str) -> str:
    return str(agent.invoke({"messages": [("user", question)]})["messages"][-1].content)
