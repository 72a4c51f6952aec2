"""The JACK tests' observer: one JACK client that stays open for a whole test and answers the
test's questions about the server's ports (tests/audio/jack_test_support.py starts it).

It opens a client on the server that JACK_DEFAULT_SERVER names, prints {"ready": true} or
{"error": why}, then answers one JSON question per line of its input:
  {"op": "ports"}                                  -> {"ports": [name, ...]}
  {"op": "connections"}                            -> {"links": {port: [port, ...]}}
  {"op": "connect", "source": s, "destination": d} -> {"connected": whether s feeds d now}
It never closes its client (os._exit at the end, whatever ends it): libjack 1.9.21's
jack_client_close can deadlock against the client's notification thread when a notification
arrives as the client closes (jack2 issue 395). stdout carries only the answers; libjack's
messages go to stderr.

Usage: jack_observer.py (with JACK_DEFAULT_SERVER set)
"""
import json
import os
import sys


def feeds(client, jack, port_name):
    """The ports connected to a port; none where it went away meanwhile."""
    try:
        return [q.name for q in client.get_all_connections(port_name)]
    except jack.JackError:
        return []


def answer(client, jack, question):
    if question["op"] == "ports":
        return {"ports": [p.name for p in client.get_ports()]}
    if question["op"] == "connections":
        return {"links": {p.name: feeds(client, jack, p.name) for p in client.get_ports()}}
    if question["op"] == "connect":
        try:
            client.connect(question["source"], question["destination"])
        except jack.JackError:
            pass  # an existing connection, or a port that went away: the connections say which
        return {"connected": question["source"] in feeds(client, jack, question["destination"])}
    raise ValueError(f"no such question: {question}")


def main():
    import jack
    jack.set_info_function(lambda message: print(message, file=sys.stderr))
    jack.set_error_function(lambda message: None)  # a server still starting: the reply says so
    try:
        client = jack.Client("prism_test_observer", no_start_server=True, servername=os.environ["JACK_DEFAULT_SERVER"])
    except jack.JackOpenError as e:
        print(json.dumps({"error": f"no JACK server answered ({e})"}), flush=True)
        return
    jack.set_error_function(lambda message: print(message, file=sys.stderr))
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        print(json.dumps(answer(client, jack, json.loads(line))), flush=True)


if __name__ == "__main__":
    try:
        main()
    finally:
        sys.stdout.flush()
        os._exit(0)  # never jack_client_close, not even from the client's finaliser
