"""A real S3-compatible server for the scale-out tests: ``moto_server`` on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.servers import free_port

MOTO = Path(sys.executable).with_name("moto_server")
BUCKET = "smartvector-test"


@pytest.fixture(scope="session")
def moto_endpoint():
    """Start ``moto_server -p PORT`` for the session; yield its endpoint URL."""
    if not MOTO.exists():
        pytest.fail(f"{MOTO} not found: install moto[server] from requirements.txt")
    port = free_port()
    proc = subprocess.Popen([str(MOTO), "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"{url}/moto-api/", timeout=1)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"moto_server did not answer on {url}")
            time.sleep(0.1)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def s3_env(moto_endpoint, monkeypatch) -> dict[str, str]:
    """AWS_* variables pointing at the moto server, a fresh bucket, and the env as a dict."""
    import boto3

    env = {"AWS_ENDPOINT_URL": moto_endpoint, "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    bucket = f"{BUCKET}-{os.urandom(4).hex()}"
    boto3.client("s3", endpoint_url=moto_endpoint, region_name="us-east-1", aws_access_key_id="testing",
                 aws_secret_access_key="testing").create_bucket(Bucket=bucket)
    return {**env, "BUCKET": bucket}


@pytest.fixture(scope="module")
def ray_cluster():
    """A local Ray cluster on 2 CPUs for one test module (workers import this repository)."""
    ray = pytest.importorskip("ray")
    from smartvector_core.scaleout.ray_ingest import REPO_ROOT

    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(REPO_ROOT)}})
    yield ray
    ray.shutdown()
