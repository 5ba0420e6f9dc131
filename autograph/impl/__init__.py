"""The public API implementation: conversion pipeline, caches, to_code."""
