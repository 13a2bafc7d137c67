from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.models import ApiToken
from apps.accounts.services import api_token_create, api_token_revoke


class TokenSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = [
            "id",
            "name",
            "key_prefix",
            "scopes",
            "created_at",
            "expires_at",
            "revoked_at",
            "last_used_at",
        ]


class TokenCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, default="default")
    scopes = serializers.ListField(
        child=serializers.CharField(max_length=16), default=["read", "submit"], max_length=3
    )
    expires_in_days = serializers.IntegerField(
        min_value=1, max_value=3650, required=False, allow_null=True, default=90
    )


class TokenListView(APIView):
    @extend_schema(responses={200: TokenSerializer(many=True)})
    def get(self, request):
        return Response(TokenSerializer(request.user.api_tokens.order_by("-id"), many=True).data)

    @extend_schema(request=TokenCreateSerializer, responses={201: serializers.DictField()})
    def post(self, request):
        ser = TokenCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        token, raw = api_token_create(user=request.user, **ser.validated_data)
        return Response(
            {**TokenSerializer(token).data, "token": raw}, status=status.HTTP_201_CREATED
        )


class TokenRevokeView(APIView):
    @extend_schema(request=None, responses={200: TokenSerializer})
    def post(self, request, pk: int):
        token = get_object_or_404(ApiToken, pk=pk, user=request.user)
        api_token_revoke(token=token)
        return Response(TokenSerializer(token).data)
